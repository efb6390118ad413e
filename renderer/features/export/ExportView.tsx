/**
 * Export and import: everything the workspace knows (or one scope of it) written in one of the
 * export formats to a path on the engine's machine or, in a browser, downloaded; with what was
 * written; and an import of such an export by path.
 */
import { useState } from 'react';
import type { ExportFormat } from '../../../shared/contracts/api';
import { CairnError } from '../../../shared/errors';
import { formatBytes, formatMs } from '../../../shared/format';
import { EXPORT_FORMATS, EXPORT_SCOPES, type ExportScope } from '../../stores/portability-store';
import { useApp, usePortability } from '../../stores/stores-context';
import { localizeKept } from '../../i18n/causes';
import { useT } from '../../use-t';
import { pageToken } from '../upload/upload-client';
import { fetchExport } from './download-client';
import { ChoosePathButton } from '../desktop/ChoosePathButton';

/** Browser mode: the export comes from the web host that served this page, with the page's token. */
async function downloadExport(request: { format: ExportFormat; scope?: ExportScope }) {
  const token = pageToken(window.location.search);
  if (!token) throw new CairnError('INVALID_INPUT', 'This page has no access token');
  const { result, blob } = await fetchExport(request, { token });
  // Handed to the browser's downloads under the file name the host chose.
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = result.out;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // The download has started from the object URL by now; it is freed a little later, for slower browsers.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  return result;
}

export function ExportView() {
  const t = useT();
  const s = usePortability((state) => state);
  const browser = useApp((state) => state.transport) === 'websocket';
  const locale = useApp((state) => state.locale);
  // The result panel says "downloaded" or "written" after what was last asked for.
  const [lastRun, setLastRun] = useState<'path' | 'download'>('path');
  return (
    <section className="view export-view" aria-labelledby="export-title">
      <header className="view-header">
        <h1 id="export-title">{t('export.title')}</h1>
        <p className="lead">{t('export.lead')}</p>
      </header>
      <form
        className="panel toolbar"
        onSubmit={(e) => {
          e.preventDefault();
          setLastRun('path');
          void s.runExport();
        }}
      >
        <label className="field compact">
          <span>{t('export.format')}</span>
          <select value={s.format} onChange={(e) => s.setFormat(e.target.value as ExportFormat)} data-testid="export-format">
            {EXPORT_FORMATS.map((f) => (
              <option key={f} value={f}>
                {t(`export.format.${f}`)}
              </option>
            ))}
          </select>
        </label>
        <label className="field compact">
          <span>{t('export.scope')}</span>
          <select value={s.scope ?? ''} onChange={(e) => s.setScope((e.target.value || null) as ExportScope | null)} data-testid="export-scope">
            <option value="">{t('export.scope.all')}</option>
            {EXPORT_SCOPES.map((scope) => (
              <option key={scope} value={scope}>
                {t(`export.scope.${scope}`)}
              </option>
            ))}
          </select>
        </label>
        {browser && (
          <button
            type="button"
            className="primary"
            disabled={s.exportStatus === 'running'}
            onClick={() => {
              setLastRun('download');
              void s.runDownload(downloadExport);
            }}
            data-testid="export-download"
          >
            {s.exportStatus === 'running' && lastRun === 'download' ? t('export.downloading') : t('export.download')}
          </button>
        )}
        <label className="field grow">
          <span>{s.format === 'json' || s.format === 'jsonl' ? t('export.outFile') : t('export.outFolder')}</span>
          <input value={s.out} onChange={(e) => s.setOut(e.target.value)} placeholder={s.format === 'json' ? '/home/me/cairn-export.json' : '/home/me/cairn-export'} spellCheck={false} data-testid="export-out" />
        </label>
        {s.format === 'json' || s.format === 'jsonl' ? (
          <ChoosePathButton picker="host:pickSavePath" request={{ defaultName: `cairn-export.${s.format}` }} onChosen={s.setOut} testId="export-choose" />
        ) : (
          <ChoosePathButton picker="host:pickFolder" request={{}} onChosen={s.setOut} testId="export-choose" />
        )}
        <button type="submit" className={browser ? undefined : 'primary'} disabled={!s.out.trim() || s.exportStatus === 'running'} data-testid="export-run">
          {s.exportStatus === 'running' && lastRun === 'path' ? t('export.running') : t('export.run')}
        </button>
        <p className="muted small full-row">{t(browser ? 'export.downloadHint' : 'export.hint')}</p>
      </form>
      {s.exportStatus === 'failed' && (
        <div className="banner banner-error" role="alert" data-testid="export-error">
          {s.exportError}
        </div>
      )}
      {s.exported && (
        <section className="panel" data-testid="export-result" data-out={s.exported.out}>
          <h2>{t(lastRun === 'download' ? 'export.downloaded' : 'export.written')}</h2>
          <p>
            <code>{s.exported.out}</code> · {t(`export.format.${s.exported.format}`)}
          </p>
          <dl className="stats inline">
            {(
              [
                ['export.files', s.exported.files],
                ['export.bytes', formatBytes(s.exported.bytes)],
                ['export.memories', s.exported.memories],
                ['export.conversations', s.exported.conversations],
                ['export.chains', s.exported.chains],
                ['export.clusters', s.exported.clusters],
                ['export.nodes', s.exported.nodes],
                ['export.time', formatMs(s.exported.ms)],
              ] as const
            ).map(([key, value]) => (
              <div className="stat" key={key}>
                <dt>{t(key)}</dt>
                <dd>{value}</dd>
              </div>
            ))}
          </dl>
        </section>
      )}
      <form
        className="panel toolbar"
        onSubmit={(e) => {
          e.preventDefault();
          void s.runImport();
        }}
      >
        <label className="field grow">
          <span>{t('export.importPath')}</span>
          <input value={s.importPath} onChange={(e) => s.setImportPath(e.target.value)} placeholder="/home/me/cairn-export.json" spellCheck={false} data-testid="import-path" />
        </label>
        <button type="submit" disabled={!s.importPath.trim() || s.importStatus === 'running'} data-testid="import-run">
          {s.importStatus === 'running' ? t('export.importing') : t('export.import')}
        </button>
      </form>
      {s.importStatus === 'failed' && (
        <div className="banner banner-error" role="alert" data-testid="import-error">
          {s.importError}
        </div>
      )}
      {s.imported && (
        <section className="panel" data-testid="import-result">
          <h2>{t('export.merged', { format: s.imported.format })}</h2>
          <table className="data-table">
            <thead>
              <tr>
                <th />
                <th>{t('export.added')}</th>
                <th>{t('export.updated')}</th>
                <th>{t('export.unchanged')}</th>
              </tr>
            </thead>
            <tbody>
              {(['memories', 'history', 'conversations', 'analyses', 'nodes'] as const).map((kind) => (
                <tr key={kind}>
                  <th scope="row">{t(`export.kind.${kind}`)}</th>
                  <td>{s.imported!.added[kind]}</td>
                  <td>{s.imported!.updated[kind]}</td>
                  <td>{s.imported!.unchanged[kind]}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {s.imported.kept.length > 0 && (
            <ul className="plain-list small">
              {s.imported.kept.map((k) => (
                <li key={k.id} data-testid="import-kept">
                  <code>{k.id}</code>: {localizeKept(k, locale)}
                </li>
              ))}
            </ul>
          )}
        </section>
      )}
    </section>
  );
}
