/**
 * Conversations and their dual-track analysis: the list of imported conversations, importing one
 * by path (a path on the engine's machine) or dropped and chosen files (in a browser they are
 * uploaded to the host first, as one upload `conversations-<time>`, then each imported from
 * there; in Electron a drop carries the files' paths), and for the one open, a tab each for its
 * messages, buckets, cluster map, chain graph, fusion (links and validations) and the trigger
 * decision with the Commit button.
 */
import { useCallback, useEffect, useState, type ChangeEvent, type DragEvent } from 'react';
import type { BucketType } from '../../../shared/types/memory';
import { formatCount } from '../../../shared/format';
import { SESSION_TABS, allMessages, type SessionTab } from '../../stores/sessions-store';
import { useApp, useSessions, useStores } from '../../stores/stores-context';
import { labelOf } from '../../i18n';
import { localizeBucketWhy } from '../../i18n/causes';
import { useT } from '../../use-t';
import { ChainGraph } from './ChainGraph';
import { ClusterMap } from './ClusterMap';
import { BUCKETS } from './cluster-map';
import { Bar, MessageItem } from './parts';
import { StatsPanel } from './StatsPanel';
import { TriggerPanel } from './TriggerPanel';
import { localPathsOfFiles, pathsFromDrop } from '../upload/drop-path';
import { entriesOfDrop, fallbackFolderName, filesAsFolder, hostPathsOf, walkEntries } from '../upload/upload';
import { UploadPanel, useFolderUpload, type UploadTexts } from '../upload/UploadPanel';
import { useDropTarget } from '../upload/use-drop-target';
import './sessions.css';
import { ChoosePathButton } from '../desktop/ChoosePathButton';

/** The one upload name rule: `conversations-20261201-1430`. */
const uploadName = () => fallbackFolderName(new Date(), 'conversations');
const UPLOAD_TEXTS: UploadTexts = { reading: 'sessions.upload.reading', cancelled: 'sessions.upload.cancelled', done: 'sessions.upload.done' };

export function SessionsView() {
  const t = useT();
  const stores = useStores();
  const openId = useSessions((s) => s.openId);

  useEffect(() => {
    void stores.sessions.getState().refresh();
  }, [stores]);

  return (
    <section className="view sessions-view" aria-labelledby="sessions-title">
      <header className="view-header">
        <h1 id="sessions-title">{t('sessions.title')}</h1>
        <p className="lead">{t('sessions.lead')}</p>
      </header>
      <ImportForm />
      <div className="sessions-body">
        <ConversationList />
        <div className="sessions-detail">{openId ? <OpenConversation /> : <p className="muted pad">{t('sessions.pick')}</p>}</div>
      </div>
      <details className="sessions-stats">
        <summary>{t('sessions.stats.title')}</summary>
        <StatsPanel />
      </details>
    </section>
  );
}

function ImportForm() {
  const t = useT();
  const path = useSessions((s) => s.importPath);
  const status = useSessions((s) => s.importStatus);
  const error = useSessions((s) => s.error);
  const setPath = useSessions((s) => s.setImportPath);
  const run = useSessions((s) => s.importPathNow);
  const importFiles = useSessions((s) => s.importFiles);
  const browser = useApp((s) => s.transport) === 'websocket';
  const localPathOf = useApp((s) => s.localPathOf);
  const [dropNote, setDropNote] = useState<{ kind: 'ok' | 'warn'; text: string } | null>(null);
  // Browser mode: the uploaded files are imported one by one from where the host put them.
  const upload = useFolderUpload(
    useCallback(async (_folder: string, { folder, outcome }) => importFiles(hostPathsOf(outcome.path, folder.files, outcome.failures)), [importFiles]),
  );
  const busy = upload.state.status === 'uploading' || status === 'loading';

  const drop = useDropTarget((event: DragEvent) => {
    if (busy) return;
    // Electron, or a file manager that names its files: the engine reads them where they are.
    const named = pathsFromDrop({ uriList: event.dataTransfer.getData('text/uri-list'), text: event.dataTransfer.getData('text/plain') });
    const paths = named.length > 0 ? named : localPathsOfFiles(event.dataTransfer.files, localPathOf);
    if (paths.length > 0) {
      setDropNote({ kind: 'ok', text: t('sessions.dropTaken', { count: paths.length }) });
      void importFiles(paths.map((p) => ({ name: p, path: p })));
      return;
    }
    // The entries must be taken now: the browser empties the drop once this handler returns.
    const entries = browser ? entriesOfDrop(event.dataTransfer.items) : [];
    // Some drops give files but no entries (a page's own DataTransfer, some apps): take the files.
    const files = browser && entries.length === 0 ? Array.from(event.dataTransfer.files) : [];
    if (entries.length > 0 || files.length > 0) {
      setDropNote(null);
      const name = uploadName();
      void upload.run(entries.length > 0 ? walkEntries(entries, name).then((folder) => ({ ...folder, name })) : Promise.resolve(filesAsFolder(files, name)));
    } else {
      setDropNote({ kind: 'warn', text: t('sessions.dropNoPath') });
    }
  });

  const onPick = (event: ChangeEvent<HTMLInputElement>) => {
    const files = event.target.files;
    if (files && files.length > 0) {
      setDropNote(null);
      void upload.run(Promise.resolve(filesAsFolder(files, uploadName())));
    }
    // The same files can be chosen again.
    event.target.value = '';
  };

  return (
    <>
      <form
        className={`panel toolbar sessions-import${drop.dragging ? ' dragging' : ''}`}
        onSubmit={(event) => {
          event.preventDefault();
          void run();
        }}
        {...drop.handlers}
        data-testid="sessions-drop"
      >
        <label className="field grow">
          <span>{t('sessions.importPath')}</span>
          <input value={path} onChange={(e) => setPath(e.target.value)} placeholder="/home/me/chats/export.json" spellCheck={false} data-testid="sessions-import-path" />
        </label>
        <ChoosePathButton picker="host:pickFile" request={{}} onChosen={setPath} disabled={busy} testId="sessions-choose" />
        <button type="submit" className="primary" disabled={!path.trim() || busy} data-testid="sessions-import">
          {status === 'loading' ? t('sessions.importing') : t('sessions.import')}
        </button>
        {browser && (
          <label className={`upload-pick${busy ? ' disabled' : ''}`}>
            {t('sessions.upload.choose')}
            <input type="file" multiple accept=".json,.jsonl,.md,.txt" className="sr-only" onChange={onPick} disabled={busy} data-testid="sessions-upload-input" />
          </label>
        )}
        <p className="muted small full-row">
          <strong>{t('sessions.drop')}</strong> · {t(browser ? 'sessions.importHint.browser' : 'sessions.importHint')}
        </p>
        {dropNote && (
          <p className={`${dropNote.kind === 'ok' ? 'note-ok' : 'note-warn'} small full-row`} role="status">
            {dropNote.text}
          </p>
        )}
        {status === 'failed' && error && (
          <p className="field-error full-row" role="alert" data-testid="sessions-error">
            {error}
          </p>
        )}
      </form>
      <UploadPanel upload={upload} texts={UPLOAD_TEXTS} />
      <FileImports />
    </>
  );
}

/** Each file of a multi-file import: waiting, importing, the conversations it held, or the engine's error. */
function FileImports() {
  const t = useT();
  const locale = useApp((s) => s.locale);
  const files = useSessions((s) => s.fileImports);
  if (files.length === 0) return null;
  const done = files.filter((f) => f.status === 'done').length;
  return (
    <section className="panel" aria-labelledby="file-imports-title" data-testid="session-file-imports">
      <h2 id="file-imports-title">
        {t('sessions.files.title')} <span className="badge">{t('sessions.files.summary', { done: formatCount(done, locale), total: formatCount(files.length, locale) })}</span>
      </h2>
      <ul className="plain-list small">
        {files.map((f, i) => (
          <li key={`${i}:${f.path}`} data-testid="session-file-import" data-status={f.status} data-name={f.name}>
            <code title={f.path}>{f.name}</code>:{' '}
            {f.status === 'done' ? (
              <span className="note-ok">
                {t('sessions.files.done', { count: f.conversations.length })} ({f.conversations.join(', ')})
              </span>
            ) : f.status === 'failed' ? (
              <span className="field-error" data-code={f.error?.code}>
                {t('sessions.files.failed')}: {f.error?.message}
              </span>
            ) : (
              <span className="muted">{t(f.status === 'importing' ? 'sessions.files.importing' : 'sessions.files.waiting')}</span>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

function ConversationList() {
  const t = useT();
  const conversations = useSessions((s) => s.conversations);
  const listStatus = useSessions((s) => s.listStatus);
  const openId = useSessions((s) => s.openId);
  const open = useSessions((s) => s.open);
  return (
    <nav className="panel sessions-list" aria-label={t('sessions.list')}>
      <h2>
        {t('sessions.list')} <span className="badge">{conversations.length}</span>
      </h2>
      {conversations.length === 0 && listStatus !== 'loading' && <p className="muted">{t('sessions.none')}</p>}
      <ul className="plain-list">
        {conversations.map((c) => (
          <li key={c.id}>
            <button type="button" className="list-button" aria-current={c.id === openId ? 'true' : undefined} onClick={() => void open(c.id)} data-testid="session-item" data-id={c.id}>
              <span className="list-title">{c.title ?? c.id}</span>
              <span className="muted small">
                {t('sessions.counts', { sessions: c.sessions, messages: c.messages })}
                {c.analyzed && <span className="badge">{t('sessions.analyzed')}</span>}
              </span>
            </button>
          </li>
        ))}
      </ul>
    </nav>
  );
}

function OpenConversation() {
  const t = useT();
  const conversation = useSessions((s) => s.conversation);
  const analysisStatus = useSessions((s) => s.analysisStatus);
  const error = useSessions((s) => s.error);
  const tab = useSessions((s) => s.tab);
  const setTab = useSessions((s) => s.setTab);
  return (
    <div className="open-conversation" data-testid="session-open" data-analysis={analysisStatus}>
      <header className="row">
        <h2>{conversation?.title ?? conversation?.id ?? '…'}</h2>
        {analysisStatus === 'loading' && <span className="muted">{t('sessions.analyzing')}</span>}
      </header>
      {analysisStatus === 'failed' && (
        <div className="banner banner-error" role="alert">
          {error}
        </div>
      )}
      <div className="tabs" role="tablist" aria-label={t('sessions.title')}>
        {SESSION_TABS.map((name: SessionTab) => (
          <button key={name} type="button" role="tab" aria-selected={tab === name} className="tab" onClick={() => setTab(name)} data-testid={`session-tab-${name}`}>
            {t(`sessions.tab.${name}`)}
          </button>
        ))}
      </div>
      <div role="tabpanel" className="tab-panel">
        {tab === 'messages' && <Messages />}
        {tab === 'buckets' && <Buckets />}
        {tab === 'clusters' && <ClusterMap />}
        {tab === 'chains' && <ChainGraph />}
        {tab === 'fusion' && <Fusion />}
        {tab === 'trigger' && <TriggerPanel />}
      </div>
    </div>
  );
}

function Messages() {
  const conversation = useSessions((s) => s.conversation);
  const messages = allMessages(conversation);
  return (
    <ol className="messages" data-testid="session-messages">
      {messages.map((m) => (
        <MessageItem key={m.id} id={m.id} role={m.role} speaker={m.speaker} timestamp={m.timestamp} text={m.text} />
      ))}
    </ol>
  );
}

function Buckets() {
  const t = useT();
  const locale = useApp((s) => s.locale);
  const analysis = useSessions((s) => s.analysis);
  if (!analysis) return <p className="muted">{t('sessions.analyzing')}</p>;
  return (
    <div className="buckets" data-testid="session-buckets">
      {BUCKETS.map((bucket: BucketType) => {
        const items = analysis.buckets[bucket] ?? [];
        return (
          <details key={bucket} className="panel bucket" open={items.length > 0 && items.length <= 4} data-bucket={bucket}>
            <summary>
              <span className={`bucket-mark bucket-${bucket}`} aria-hidden="true" />
              {t(`bucket.${bucket}`)} <span className="badge" data-testid="bucket-count">{formatCount(items.length, locale)}</span>
            </summary>
            <ul className="plain-list item-list">
              {items.map((item) => (
                <li key={item.id}>
                  <code className="message-id">{item.message_ids.join(', ')}</code> <strong>{item.speaker ?? labelOf(t, 'messageRole', item.role)}</strong>: {item.text}
                  {(item.why || item.reason) && (
                    <div className="muted small" data-testid="bucket-reason">
                      {localizeBucketWhy(item, locale)}
                    </div>
                  )}
                </li>
              ))}
            </ul>
          </details>
        );
      })}
    </div>
  );
}

function Fusion() {
  const t = useT();
  const analysis = useSessions((s) => s.analysis);
  if (!analysis) return <p className="muted">{t('sessions.analyzing')}</p>;
  const label = (id: string) => analysis.clusters.find((c) => c.cluster_id === id)?.topic_label ?? id;
  const failed = analysis.validations.filter((v) => !v.passed || v.issues.length > 0);
  return (
    <div className="fusion" data-testid="session-fusion">
      <section className="panel">
        <h3>
          {t('sessions.links')} <span className="badge">{analysis.links.length}</span>
        </h3>
        {analysis.links.length === 0 && <p className="muted">{t('sessions.noLinks')}</p>}
        <table className="data-table">
          <thead>
            <tr>
              <th>{t('sessions.cluster')}</th>
              <th>{t('sessions.chain')}</th>
              <th>{t('sessions.linkType')}</th>
              <th>{t('sessions.strength')}</th>
              <th>{t('sessions.evidence')}</th>
            </tr>
          </thead>
          <tbody>
            {analysis.links.map((link) => (
              <tr key={`${link.cluster_id}|${link.chain_id}`} data-testid="fusion-link">
                <td>{label(link.cluster_id)}</td>
                <td>
                  <code>{link.chain_id}</code>
                </td>
                <td>{labelOf(t, 'linkType', link.link_type)}</td>
                <td>
                  <Bar value={link.strength} />
                </td>
                <td>
                  <ul className="plain-list small">
                    {link.evidence.map((line) => (
                      <li key={line}>{line}</li>
                    ))}
                  </ul>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <section className="panel">
        <h3>
          {t('sessions.validations')} <span className="badge">{t('sessions.passed', { passed: analysis.validations.length - failed.length, total: analysis.validations.length })}</span>
        </h3>
        {failed.length === 0 && <p className="note-ok">{t('sessions.allPassed')}</p>}
        <ul className="plain-list">
          {failed.map((v, i) => (
            <li key={i} className="validation" data-testid="validation-issue">
              <strong>{labelOf(t, 'validation', v.validation_type)}</strong> {v.passed ? '✓' : '✗'} <span className="muted">{v.chain_id ?? v.cluster_id}</span>
              <ul>
                {v.issues.map((issue) => (
                  <li key={issue}>{issue}</li>
                ))}
                {v.suggestions.map((s) => (
                  <li key={s} className="muted">
                    {t('sessions.suggestion')}: {s}
                  </li>
                ))}
              </ul>
            </li>
          ))}
        </ul>
      </section>
      <section className="panel">
        <h3>{t('sessions.summary')}</h3>
        <dl className="meta-table">
          {(['topic_summary', 'causal_summary', 'logic_summary', 'operation_summary', 'narrative_summary', 'time_summary'] as const).map((key) =>
            analysis.summary[key] ? (
              <div className="meta-row" key={key}>
                <dt>{labelOf(t, 'summaryDim', key.replace('_summary', ''))}</dt>
                <dd>{analysis.summary[key]}</dd>
              </div>
            ) : null,
          )}
        </dl>
      </section>
    </div>
  );
}
