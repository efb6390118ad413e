/**
 * Compression: a query, a token budget and a strategy make a context pack; the view shows the
 * pack's tokens (gathered → in the pack) with Copy and Save (Markdown, JSON), the text before and
 * after side by side (Monaco's diff editor), each block's fate (kept, shortened, summarized into
 * its chain's summary, dropped), which chains survived whole, and the token counts.
 */
import { lazy, Suspense, useState } from 'react';
import type { ChainReport, CompressionStrategy, ContextBlock } from '../../../shared/types/compress';
import { formatCount } from '../../../shared/format';
import { STRATEGIES, blockFates } from '../../stores/compress-store';
import { useApp, useCompress } from '../../stores/stores-context';
import { useT } from '../../use-t';
import { labelOf } from '../../i18n';
import { blockLabel, chainLabel } from './labels';
import { useResolvedTheme } from '../../use-theme';
import { packJsonFile, packMarkdownFile, packTokens, type PackFile } from './pack-files';
import type { ContextPack } from '../../stores/compress-store';
import './compress.css';

const DiffView = lazy(() => import('./DiffView'));

export function CompressView() {
  const t = useT();
  const query = useCompress((s) => s.query);
  const budget = useCompress((s) => s.budget);
  const strategy = useCompress((s) => s.strategy);
  const status = useCompress((s) => s.status);
  const error = useCompress((s) => s.error);
  const { setQuery, setBudget, setStrategy, run } = useCompress((s) => s);
  return (
    <section className="view compress-view" aria-labelledby="compress-title">
      <header className="view-header">
        <h1 id="compress-title">{t('compress.title')}</h1>
        <p className="lead">{t('compress.lead')}</p>
      </header>
      <form
        className="panel toolbar"
        onSubmit={(e) => {
          e.preventDefault();
          void run();
        }}
      >
        <label className="field grow">
          <span>{t('compress.query')}</span>
          <input value={query} onChange={(e) => setQuery(e.target.value)} placeholder={t('compress.placeholder')} data-testid="compress-query" />
        </label>
        <label className="field compact">
          <span>{t('compress.budget')}</span>
          <input type="number" min={1} step={1} value={budget} onChange={(e) => setBudget(Number(e.target.value))} className="narrow" data-testid="compress-budget" />
        </label>
        <label className="field compact">
          <span>{t('compress.strategy')}</span>
          <select value={strategy} onChange={(e) => setStrategy(e.target.value as CompressionStrategy)} data-testid="compress-strategy">
            {STRATEGIES.map((s) => (
              <option key={s} value={s}>
                {t(`compress.strategy.${s}`)}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" className="primary" disabled={!query.trim() || status === 'running'} data-testid="compress-run">
          {status === 'running' ? t('compress.running') : t('compress.run')}
        </button>
      </form>
      {status === 'failed' && (
        <div className="banner banner-error" role="alert">
          {error}
        </div>
      )}
      <Outcome />
    </section>
  );
}

function Outcome() {
  const t = useT();
  const theme = useResolvedTheme();
  const locale = useApp((s) => s.locale);
  const status = useCompress((s) => s.status);
  const result = useCompress((s) => s.result);
  const blocks = useCompress((s) => s.blocks);
  const before = useCompress((s) => s.before);
  const after = useCompress((s) => s.after);
  const pack = useCompress((s) => s.pack);
  if (status !== 'done' || !result) return status === 'idle' ? <p className="muted">{t('compress.hint')}</p> : null;
  if (blocks.length === 0) return <p className="muted" data-testid="compress-empty">{t('compress.nothing')}</p>;
  const fates = blockFates(blocks, result);
  const saved = result.original_tokens > 0 ? Math.round((1 - result.compressed_tokens / result.original_tokens) * 100) : 0;
  return (
    <>
      {pack && <PackBar pack={pack} />}
      <p className="compress-totals" data-testid="compress-totals" data-original={result.original_tokens} data-compressed={result.compressed_tokens} data-budget={result.budget}>
        {/* The blocks the diff shows, under their own name: the pack bar above counts the whole pack. */}
        <span className="muted">{t('compress.blocks')}: </span>
        <strong>{formatCount(result.original_tokens, locale)}</strong> → <strong>{formatCount(result.compressed_tokens, locale)}</strong> {t('compress.tokens')}
        <span className="badge">−{saved}%</span>
        <span className="muted small"> · {t('compress.budgetWas', { budget: formatCount(result.budget, locale) })}</span>
      </p>
      <div className="diff-labels">
        <span>{t('compress.before')}</span>
        <span>{t('compress.after')}</span>
      </div>
      <Suspense fallback={<p className="muted">{t('explorer.loading')}</p>}>
        <DiffView before={before} after={after} theme={theme} label={t('compress.diff')} />
      </Suspense>
      <div className="compress-lists">
        <section className="panel">
          <h3>
            {t('compress.blocks')} <span className="badge">{blocks.length}</span>
          </h3>
          <table className="data-table">
            <thead>
              <tr>
                <th>{t('compress.block')}</th>
                <th>{t('compress.fate')}</th>
                <th>{t('compress.priority')}</th>
                <th>{t('compress.tokensCol')}</th>
              </tr>
            </thead>
            <tbody>
              {fates.map(({ block, fate, tokens }) => (
                <tr key={block.id} data-testid="compress-block" data-fate={fate}>
                  <td>
                    <BlockName block={block} />
                  </td>
                  <td>
                    <span className={`op fate-${fate}`}>{t(`compress.fate.${fate}`)}</span>
                  </td>
                  <td>{block.priority}</td>
                  <td>
                    {fate === 'dropped' || fate === 'summarized' ? block.token_count : `${tokens} / ${block.token_count}`}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
        <section className="panel" data-testid="compress-chains">
          <h3>{t('compress.chains')}</h3>
          {result.chains.length === 0 && <p className="muted">{t('compress.noChains')}</p>}
          <ul className="plain-list">
            {result.chains.map((c) => (
              <li key={c.id} data-testid="compress-chain" data-status={c.status}>
                <span className={`op chain-status-${result.intact_chains.includes(c.id) ? 'intact' : 'broken'}`}>
                  {result.intact_chains.includes(c.id) ? t('compress.intact') : t('compress.broken')}
                </span>{' '}
                <ChainName chain={c} blocks={blocks} /> <span className="muted small">· {t(`compress.status.${c.status}`)}</span>
              </li>
            ))}
          </ul>
          {result.replaced.map((r) => (
            <div key={r.chain_ids.join('|')} className="replaced">
              <div className="muted small" title={r.chain_ids.join(', ')} data-testid="compress-summary-of">
                {t('compress.summaryOf', { chains: r.chain_ids.map((id) => chainTypeName(t, id, result.chains, blocks)).join(', '), tokens: r.token_count, original: r.original_token_count })}
              </div>
              <p className="small">{r.content}</p>
            </div>
          ))}
        </section>
      </div>
    </>
  );
}

/** A block by its title and messages; its id (a `ctx://` link) on a second, quieter line. */
function BlockName({ block }: { block: ContextBlock }) {
  const t = useT();
  const { title, messages } = blockLabel(block);
  return (
    <>
      <span className="block-title" data-testid="compress-block-title">
        {title}
        {messages.length > 0 && <span className="muted"> · {t('compress.messages', { count: messages.length, ids: messages.join(', ') })}</span>}
      </span>
      <code className="block-id muted small" title={block.id}>
        {block.id.replace(/^ctx:\/\//, '')}
      </code>
    </>
  );
}

/** A chain by its type and first step; its id in the tooltip. */
function ChainName({ chain, blocks }: { chain: ChainReport; blocks: readonly ContextBlock[] }) {
  const t = useT();
  const { type, first } = chainLabel(chain, blocks);
  return (
    <span className="chain-name" title={chain.id} data-testid="compress-chain-name">
      {type && <strong>{labelOf(t, 'chain', type.toUpperCase())}: </strong>}
      {first || chain.id}
    </span>
  );
}

/** A chain named by its type alone (where its first step would be too long to list), else its id. */
function chainTypeName(t: ReturnType<typeof useT>, id: string, chains: readonly ChainReport[], blocks: readonly ContextBlock[]): string {
  const chain = chains.find((c) => c.id === id);
  const type = chain ? chainLabel(chain, blocks).type : null;
  return type ? labelOf(t, 'chain', type.toUpperCase()) : id;
}

/** Hands a file to the browser's (or Electron's) downloads. */
function download(file: PackFile): void {
  const url = URL.createObjectURL(new Blob([file.text], { type: file.type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = file.name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // The download has started from the object URL by now; freed a little later, for slower browsers.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** The pack as an agent gets it: its tokens against what was gathered, Copy, Save. */
function PackBar({ pack }: { pack: ContextPack }) {
  const t = useT();
  const locale = useApp((s) => s.locale);
  const [copy, setCopy] = useState<{ state: 'idle' | 'copied' } | { state: 'failed'; error: string }>({ state: 'idle' });
  const tokens = packTokens(pack);
  const onCopy = async () => {
    try {
      await navigator.clipboard.writeText(pack.markdown);
      setCopy({ state: 'copied' });
    } catch (error) {
      setCopy({ state: 'failed', error: error instanceof Error ? error.message : String(error) });
    }
  };
  return (
    <div className="panel toolbar pack-bar" data-testid="compress-pack" data-before={tokens.before} data-after={tokens.after}>
      <span className="pack-tokens">
        <strong>{t('compress.pack')}</strong>{' '}
        {t('compress.packTokens', { before: formatCount(tokens.before, locale), after: formatCount(tokens.after, locale), saved: formatCount(tokens.saved, locale) })}
        <span className="badge">−{tokens.percent}%</span>
      </span>
      <button type="button" onClick={() => void onCopy()} data-testid="compress-copy">
        {copy.state === 'copied' ? t('compress.copied') : t('compress.copy')}
      </button>
      <button type="button" onClick={() => download(packMarkdownFile(pack, new Date()))} data-testid="compress-save-md">
        {t('compress.saveMarkdown')}
      </button>
      <button type="button" onClick={() => download(packJsonFile(pack, new Date()))} data-testid="compress-save-json">
        {t('compress.saveJson')}
      </button>
      {copy.state === 'failed' && (
        <span className="banner banner-error" role="alert">
          {t('compress.copyFailed', { error: copy.error })}
        </span>
      )}
    </div>
  );
}
