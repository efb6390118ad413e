import { lazy, Suspense, useEffect } from 'react';
import { INGEST_SCOPES, scopeRootUri, type IngestScope } from '../../../shared/uri';
import type { NodeMeta } from '../../../shared/types/node';
import { Markdown } from '../../components/Markdown';
import { formatBytes, formatCount } from '../../../shared/format';
import { hasContent } from '../../stores/explorer-store';
import { useApp, useExplorer } from '../../stores/stores-context';
import { useT, type Translate } from '../../use-t';
import { useResolvedTheme } from '../../use-theme';
import { SkipGroups } from '../../components/SkipGroups';
import { ContextTree } from './ContextTree';
import { SkillList } from './SkillList';
import { AddedReason } from './AddedReason';
import { monacoLanguage } from './language';
import './explorer.css';
import { UpgradeSummaries, summarizerLabel } from './UpgradeSummaries';

const CodeView = lazy(() => import('./CodeView'));

export function ExplorerView() {
  const t = useT();
  const scope = useExplorer((s) => s.scope);
  const setScope = useExplorer((s) => s.setScope);
  const load = useExplorer((s) => s.load);
  const reveal = useExplorer((s) => s.reveal);
  const refresh = useExplorer((s) => s.refresh);
  const target = useApp((s) => s.explorerTarget);
  const clearTarget = useApp((s) => s.clearExplorerTarget);

  useEffect(() => {
    if (target) {
      clearTarget();
      void load(scopeRootUri(scope), true).then(() => reveal(target));
    } else {
      void load(scopeRootUri(scope));
    }
  }, [target, clearTarget, load, reveal, scope]);

  return (
    <section className="view explorer-view" aria-labelledby="explorer-title">
      <header className="view-header row">
        <h1 id="explorer-title">{t('explorer.title')}</h1>
        <div className="toolbar">
          <div className="segmented" role="group" aria-label={t('home.scope')}>
            {INGEST_SCOPES.map((name: IngestScope) => (
              <button key={name} type="button" aria-pressed={scope === name} onClick={() => void setScope(name)}>
                {name}
              </button>
            ))}
          </div>
          <button type="button" onClick={() => void refresh()} data-testid="explorer-refresh">
            {t('explorer.refresh')}
          </button>
        </div>
      </header>
      <div className="split">
        <aside className="tree-pane panel">
          {scope === 'agent' && <SkillList />}
          <ContextTree />
        </aside>
        <div className="details-pane">
          <NodeDetails />
        </div>
      </div>
    </section>
  );
}

function NodeDetails() {
  const t = useT();
  const details = useExplorer((s) => s.details);
  const theme = useResolvedTheme();
  if (!details) return <p className="muted pad">{t('explorer.select')}</p>;
  if (details.status === 'loading') return <p className="muted pad">{t('explorer.loading')}</p>;
  if (details.status === 'failed' || !details.stat) {
    return (
      <p className="banner banner-error" role="alert">
        {details.error}
      </p>
    );
  }
  const { stat } = details;
  const meta = stat.meta;
  const name = details.uri.replace(/\/$/, '').split('/').pop() ?? details.uri;
  const language = monacoLanguage(meta, details.uri);
  const showsContent = hasContent(stat);
  return (
    <article className="node-details" data-testid="node-details" data-uri={details.uri}>
      <header>
        <h2>{name}</h2>
        <code className="uri">{details.uri}</code>
        {stat.kind === 'dir' && <UpgradeSummaries key={details.uri} uri={details.uri} />}
      </header>
      {meta?.reason && <AddedReason reason={meta.reason} t={t} />}
      <section className="panel" aria-labelledby="l0-title">
        <h3 id="l0-title">{t('explorer.abstract')}</h3>
        {details.abstract !== null ? (
          <p className="abstract" data-testid="node-abstract">
            {details.abstract}
          </p>
        ) : (
          <NotSummarized meta={meta} t={t} />
        )}
      </section>
      <section className="panel" aria-labelledby="l1-title">
        <h3 id="l1-title">{t('explorer.overview')}</h3>
        {details.overview !== null ? (
          <div data-testid="node-overview">
            <Markdown text={details.overview} />
          </div>
        ) : (
          <NotSummarized meta={meta} t={t} />
        )}
      </section>
      <section className="panel content-panel" aria-labelledby="l2-title">
        <h3 id="l2-title">
          {t('explorer.content')} {showsContent && <span className="badge">{language}</span>}
        </h3>
        {!showsContent ? (
          <p className="muted">{t('explorer.dirContent')}</p>
        ) : (
          <Suspense fallback={<p className="muted">{t('explorer.loading')}</p>}>
            <CodeView value={details.content ?? ''} language={language} theme={theme} label={`${t('explorer.content')}: ${name}`} />
          </Suspense>
        )}
      </section>
      <section className="panel" aria-labelledby="meta-title">
        <h3 id="meta-title">{t('explorer.meta')}</h3>
        <MetaTable meta={meta} kind={stat.kind} bytes={stat.bytes} childCount={stat.children} t={t} />
      </section>
      {meta?.warnings && meta.warnings.length > 0 && <WarningList warnings={meta.warnings} t={t} />}
      {meta?.skipped && meta.skipped.length > 0 && <SkipList meta={meta} t={t} />}
    </article>
  );
}

function NotSummarized({ meta, t }: { meta: NodeMeta | null; t: Translate }) {
  return (
    <p className="muted">
      {t('explorer.notSummarized')}
      {meta?.summary_reason ? ` (${meta.summary_reason})` : ''}
    </p>
  );
}

function MetaTable({ meta, kind, bytes, childCount, t }: { meta: NodeMeta | null; kind: 'file' | 'dir'; bytes: number; childCount?: number; t: Translate }) {
  const locale = useApp((s) => s.locale);
  const rows: [string, string | undefined][] = [
    [t('explorer.meta.kind'), t(`explorer.kind.${kind}`)],
    [t('explorer.meta.source'), meta?.source_path ?? meta?.provenance?.source],
    [t('explorer.meta.parser'), meta?.parser],
    [t('explorer.meta.format'), meta?.source_format],
    [t('explorer.meta.language'), meta?.language],
    [t('explorer.meta.tokens'), meta?.tokens !== undefined ? formatCount(meta.tokens, locale) : undefined],
    [t('explorer.meta.bytes'), kind === 'file' ? formatBytes(meta?.bytes ?? bytes) : undefined],
    [t('explorer.meta.children'), childCount !== undefined ? formatCount(childCount, locale) : undefined],
    [t('explorer.meta.lines'), meta?.provenance?.lines ? `${meta.provenance.lines[0]}–${meta.provenance.lines[1]}` : undefined],
    [t('explorer.meta.status'), meta?.summary_status],
    [t('explorer.meta.reason'), meta?.summary_reason],
    [t('explorer.meta.summarizer'), summarizerLabel(meta?.summarizer)],
    [t('explorer.meta.category'), meta?.category],
    [t('explorer.meta.updated'), meta?.updated_at],
  ];
  return (
    <dl className="meta-table" data-testid="node-meta">
      {rows
        .filter((row): row is [string, string] => row[1] !== undefined && row[1] !== '')
        .map(([label, value]) => (
          <div key={label} className="meta-row">
            <dt>{label}</dt>
            <dd>
              {label === t('explorer.meta.status') ? <span className={`status-pill status-${value}`}>{value}</span> : value}
            </dd>
          </div>
        ))}
    </dl>
  );
}

/** What the parser assumed or left out while reading the file (a legacy encoding, a page without an article). */
function WarningList({ warnings, t }: { warnings: string[]; t: Translate }) {
  return (
    <section className="panel" aria-labelledby="warnings-title" data-testid="node-warnings">
      <h3 id="warnings-title">{t('explorer.warnings', { count: warnings.length })}</h3>
      <ul className="note-warn warning-list">
        {warnings.map((warning) => (
          <li key={warning}>{warning}</li>
        ))}
      </ul>
    </section>
  );
}

function SkipList({ meta, t }: { meta: NodeMeta; t: Translate }) {
  const skipped = meta.skipped ?? [];
  const total = meta.skipped_total ?? skipped.length;
  return (
    <section className="panel" aria-labelledby="skips-title" data-testid="node-skips">
      <h3 id="skips-title">{t('explorer.skips', { count: total })}</h3>
      <SkipGroups skips={skipped} open={skipped.length <= 12} />
    </section>
  );
}
