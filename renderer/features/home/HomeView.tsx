import { useCallback, useEffect, useRef, useState, type ChangeEvent, type DragEvent, type FormEvent } from 'react';
import { CODE_MODES } from './drop';
import { localPathsOfFiles, pathFromDrop } from '../upload/drop-path';
import { entriesOfDrop, fallbackFolderName, folderOfInput, walkEntries } from '../upload/upload';
import { UploadPanel, useFolderUpload } from '../upload/UploadPanel';
import { SkipGroups } from '../../components/SkipGroups';
import { INGEST_SCOPES, type IngestScope } from '../../../shared/uri';
import type { CodeSummaryMode, FileWarning, IngestResult } from '../../../shared/types/ingest';
import { formatBytes, formatCount, formatMs } from '../../../shared/format';
import { useApp, useIngest, useStores } from '../../stores/stores-context';
import { uploadClash } from '../upload/clash';
import { useT, type Translate } from '../../use-t';
import { EstimatePanel, IngestOptionsFields, RecentPanel } from './HomeOptions';
import { FieldHelp, TrySample } from './FirstRun';
import { useDropTarget } from '../upload/use-drop-target';
import { GitSourceField } from './GitSourceField';
import './home.css';
import { ChoosePathButton } from '../desktop/ChoosePathButton';
import { SummaryBadge } from './SummaryBadge';
import { UpgradeSummaries } from '../explorer/UpgradeSummaries';

export function HomeView() {
  const t = useT();
  const form = useIngest((s) => s.form);
  const status = useIngest((s) => s.status);
  // Whether the run moved on since Home was opened: its panels are then scrolled into view.
  const openedOn = useRef(status);
  const moved = useRef(false);
  if (status !== openedOn.current) moved.current = true;
  const setForm = useIngest((s) => s.setForm);
  const start = useIngest((s) => s.start);
  const cancel = useIngest((s) => s.cancel);
  const transport = useApp((s) => s.transport);
  const localPathOf = useApp((s) => s.localPathOf);
  const [dropNote, setDropNote] = useState<{ kind: 'ok' | 'warn'; text: string } | null>(null);
  const [invalid, setInvalid] = useState(false);
  const stores = useStores();
  // An uploaded folder whose name a tree of another source has: update that tree, or add a copy?
  const [clash, setClash] = useState<string | null>(null);
  // Browser mode: an uploaded folder is ingested from where the host put it, as Electron ingests a real path.
  const upload = useFolderUpload(
    useCallback(
      async (path: string) => {
        setForm({ path });
        const root = await uploadClash(stores.client, path, stores.ingest.getState().form.scope).catch(() => null);
        if (root) setClash(root);
        else await start();
      },
      [setForm, start, stores],
    ),
  );
  const answerClash = (onClash: 'update' | 'copy') => {
    setClash(null);
    void start({ onClash });
  };
  const uploading = upload.state.status === 'uploading';

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (!form.path.trim()) {
      setInvalid(true);
      return;
    }
    setInvalid(false);
    void start();
  };

  const drop = useDropTarget((event: DragEvent) => {
    const path =
      pathFromDrop({
        uriList: event.dataTransfer.getData('text/uri-list'),
        text: event.dataTransfer.getData('text/plain'),
      }) ??
      localPathsOfFiles(event.dataTransfer.files, localPathOf)[0] ??
      null;
    if (path) {
      setForm({ path });
      setDropNote({ kind: 'ok', text: t('home.dropTaken', { path }) });
      return;
    }
    // The entries must be taken now: the browser empties the drop once this handler returns.
    const entries = transport === 'websocket' ? entriesOfDrop(event.dataTransfer.items) : [];
    if (entries.length > 0 && !uploading && status !== 'running') {
      setDropNote(null);
      void upload.run(walkEntries(entries, fallbackFolderName()));
    } else {
      setDropNote({ kind: 'warn', text: t('home.dropNoPath') });
    }
  });

  const onPick = (event: ChangeEvent<HTMLInputElement>) => {
    const files = event.target.files;
    if (files && files.length > 0) {
      setDropNote(null);
      void upload.run(Promise.resolve(folderOfInput(files, fallbackFolderName())));
    }
    // The same folder can be chosen again.
    event.target.value = '';
  };

  return (
    <section className="view home-view" aria-labelledby="home-title">
      <header className="view-header">
        <h1 id="home-title">{t('home.title')}</h1>
        <p className="lead">{t('home.lead')}</p>
      </header>
      <TrySample />

      <div
        className={`drop-zone${drop.dragging ? ' dragging' : ''}`}
        data-testid="drop-zone"
        {...drop.handlers}
      >
        <strong>{t('home.drop')}</strong>
        {transport === 'websocket' && (
          <>
            <p className="muted">{t('home.dropHint.browser')}</p>
            <label className={`upload-pick${uploading || status === 'running' ? ' disabled' : ''}`}>
              {t('home.upload.choose')}
              <input
                type="file"
                multiple
                className="sr-only"
                // React has no prop for it; Chromium, Firefox and Safari all take the attribute.
                ref={(input) => input?.setAttribute('webkitdirectory', '')}
                onChange={onPick}
                disabled={uploading || status === 'running'}
                data-testid="upload-input"
              />
            </label>
          </>
        )}
        {dropNote && (
          <p className={dropNote.kind === 'ok' ? 'note-ok' : 'note-warn'} role="status">
            {dropNote.text}
          </p>
        )}
      </div>

      <form className="ingest-form" onSubmit={onSubmit} aria-label={t('home.title')}>
        <label className="field grow">
          <span>{t('home.path')}</span>
          <input
            type="text"
            name="path"
            value={form.path}
            placeholder={t('home.pathPlaceholder')}
            onChange={(e) => setForm({ path: e.target.value })}
            aria-invalid={invalid || undefined}
            aria-describedby={invalid ? 'path-error' : undefined}
            spellCheck={false}
            autoComplete="off"
            data-testid="ingest-path"
          />
          {invalid && (
            <span id="path-error" className="field-error">
              {t('home.pathRequired')}
            </span>
          )}
        </label>
        <ChoosePathButton picker="host:pickFolder" request={{}} onChosen={(path) => setForm({ path })} testId="ingest-choose" />
        <label className="field">
          <span>{t('home.scope')}</span>
          <select value={form.scope} onChange={(e) => setForm({ scope: e.target.value as IngestScope })} aria-describedby="ingest-scope-help" data-testid="ingest-scope">
            {INGEST_SCOPES.map((scope) => (
              <option key={scope} value={scope}>
                {scope}
              </option>
            ))}
          </select>
          <FieldHelp id="ingest-scope-help">{t('home.scopeHelp')}</FieldHelp>
        </label>
        <label className="field">
          <span>{t('home.codeMode')}</span>
          <select value={form.codeMode} onChange={(e) => setForm({ codeMode: e.target.value as CodeSummaryMode })} aria-describedby="ingest-code-mode-help" data-testid="ingest-code-mode">
            {CODE_MODES.map((mode) => (
              <option key={mode} value={mode}>
                {t(`home.codeMode.${mode}`)}
              </option>
            ))}
          </select>
          <FieldHelp id="ingest-code-mode-help">{t('home.codeModeHelp')}</FieldHelp>
        </label>
        <IngestOptionsFields />
        <div className="form-actions">
          <button type="submit" className="primary" disabled={status === 'running'} data-testid="ingest-start">
            {t('home.start')}
          </button>
          {status === 'running' && (
            <button type="button" onClick={() => void cancel()} data-testid="ingest-cancel">
              {t('home.cancel')}
            </button>
          )}
        </div>
      </form>

      {/* What the run is doing sits right under the form that started it, not below the git form. */}
      <UploadPanel upload={upload} />
      {clash && (
        <div className="banner banner-warn" role="alertdialog" aria-label={t('home.clash.question', { root: clash })} data-testid="upload-clash">
          <p>{t('home.clash.question', { root: clash })}</p>
          <button type="button" className="primary" onClick={() => answerClash('update')}>
            {t('home.clash.update', { root: clash })}
          </button>{' '}
          <button type="button" onClick={() => answerClash('copy')}>
            {t('home.clash.copy')}
          </button>
        </div>
      )}
      {status === 'running' && <IngestProgressPanel reveal={moved.current} />}
      {status === 'cancelled' && (
        <p className="banner banner-warn" role="status">
          {t('home.cancelled')}
        </p>
      )}
      {status === 'failed' && <IngestError />}
      {status === 'done' && <IngestResultPanel reveal={moved.current} />}
      {status === 'done' && <EstimatePanel />}
      <GitSourceField />
      <RecentPanel />
    </section>
  );
}

/**
 * Scrolls a panel into view when it appears because the run moved on while Home was open (a person
 * who pressed Ingest sees the run start and end), not when Home is opened again on it.
 */
function useRevealOnMount<T extends HTMLElement>(reveal: boolean) {
  const ref = useRef<T>(null);
  useEffect(() => {
    if (reveal) ref.current?.scrollIntoView?.({ block: 'nearest' });
  }, [reveal]);
  return ref;
}

function IngestProgressPanel({ reveal: revealIt }: { reveal: boolean }) {
  const t = useT();
  const reveal = useRevealOnMount<HTMLElement>(revealIt);
  const progress = useIngest((s) => s.progress);
  const locale = useApp((s) => s.locale);
  const phase = progress.phase ? t(`home.phase.${progress.phase}`) : t('home.phase.waiting');
  const count =
    progress.total !== null ? t('home.doneOf', { done: formatCount(progress.done, locale), total: formatCount(progress.total, locale) }) : t('home.doneCount', { done: formatCount(progress.done, locale) });
  return (
    <section ref={reveal} className="panel progress-panel" aria-labelledby="progress-title" data-testid="ingest-progress">
      <h2 id="progress-title">{t('home.progress')}</h2>
      <div className="progress-line">
        <span className="phase" data-testid="ingest-phase">
          {phase}
        </span>
        <span>{count}</span>
        <span className="muted">{formatBytes(progress.bytes)}</span>
      </div>
      <progress max={progress.total ?? undefined} value={progress.total !== null ? progress.done : undefined} aria-label={phase} />
      {progress.waiting && (
        <p className="muted" role="status" data-testid="ingest-waiting">
          {progress.waiting}
        </p>
      )}
      {progress.current && (
        <p className="current" title={progress.current}>
          <span className="muted">{t('home.current')}: </span>
          <code>{progress.current}</code>
        </p>
      )}
    </section>
  );
}

function IngestError() {
  const t = useT();
  const error = useIngest((s) => s.error);
  const retry = useIngest((s) => s.retry);
  return (
    <div className="banner banner-error" role="alert" data-testid="ingest-error">
      <div>
        <strong>{t('home.failed')}</strong> <span className="code">{t('error.code', { code: error?.code ?? 'INTERNAL' })}</span>
        <p>{error?.message}</p>
      </div>
      <button type="button" onClick={() => void retry()}>
        {t('home.retry')}
      </button>
    </div>
  );
}

function IngestResultPanel({ reveal: revealIt }: { reveal: boolean }) {
  const t = useT();
  const reveal = useRevealOnMount<HTMLElement>(revealIt);
  const result = useIngest((s) => s.result) as IngestResult;
  const locale = useApp((s) => s.locale);
  const openInExplorer = useApp((s) => s.openInExplorer);
  const setView = useApp((s) => s.setView);
  // Files and nodes as the Live DAG and the CLI count them (shared/tree-counts.ts); the tip says what.
  const tips: Record<string, string> = { [t('home.files')]: t('counts.filesTip'), [t('home.nodes')]: t('counts.nodesTip'), [t('home.changed')]: t('counts.changedTip') };
  const stats: [string, string][] = [
    [t('home.files'), formatCount(result.files, locale)],
    [t('home.nodes'), formatCount(result.nodes, locale)],
    [t('home.changed'), formatCount(result.changed, locale)],
    [t('home.tokens'), formatCount(result.tokens, locale)],
    [t('home.size'), formatBytes(result.bytes)],
    [t('home.time'), formatMs(result.ms)],
  ];
  return (
    <section ref={reveal} className="panel result-panel" aria-labelledby="result-title" data-testid="ingest-result">
      <h2 id="result-title">{t('home.result')}</h2>
      <p>
        <span className="muted">{t('home.root')}: </span>
        <code data-testid="ingest-root">{result.root}</code>
        {result.resumed && <span className="badge">{t('home.resumed')}</span>}
      </p>
      <SummaryBadge root={result.root} />
      <dl className="stats">
        {stats.map(([label, value]) => (
          <div key={label} className="stat" title={tips[label]}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      <h3>{t('home.skipped', { count: result.skipped.length })}</h3>
      {result.skipped.length === 0 ? (
        <p className="muted">{t('home.noSkips')}</p>
      ) : (
        <div className="skip-groups" data-testid="skip-groups">
          <SkipGroups skips={result.skipped} />
        </div>
      )}
      {result.warnings.length > 0 && <IngestWarnings warnings={result.warnings} t={t} />}
      <div className="form-actions">
        <button type="button" className="primary" onClick={() => openInExplorer(result.root)} data-testid="open-explorer">
          {t('home.openExplorer')}
        </button>
        <button type="button" onClick={() => setView('dag')}>
          {t('home.openDag')}
        </button>
        <UpgradeSummaries uri={result.root} />
      </div>
    </section>
  );
}

/** Files kept with a warning: what their parser assumed or left out (a legacy encoding, a page without an article). */
function IngestWarnings({ warnings, t }: { warnings: FileWarning[]; t: Translate }) {
  const shown = warnings.slice(0, WARNINGS_SHOWN);
  return (
    <details className="ingest-warnings" data-testid="home-warnings" open={warnings.length <= WARNINGS_SHOWN}>
      <summary>{t('home.warnings', { count: warnings.length })}</summary>
      <ul className="note-warn warning-list">
        {shown.map(({ path, warning }) => (
          <li key={`${path}\n${warning}`}>
            <code>{path}</code>: {warning}
          </li>
        ))}
      </ul>
      {warnings.length > shown.length && <p className="muted">{t('home.warningsMore', { count: warnings.length - shown.length })}</p>}
    </details>
  );
}

const WARNINGS_SHOWN = 12;
