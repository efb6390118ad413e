/**
 * Browser mode: a dropped or chosen folder (Home) or a few chosen files (Sessions) are uploaded
 * to the host, then read from there (see upload.ts). `useFolderUpload` runs one upload at a time;
 * `UploadPanel` shows its files and bytes as they go and every file the host refused, with the
 * reason. The few lines that say what happens next are the view's own (`UploadTexts`).
 */
import { useCallback, useRef, useState } from 'react';
import { formatBytes, formatCount } from '../../../shared/format';
import type { MessageKey } from '../../i18n';
import { useApp } from '../../stores/stores-context';
import { useT } from '../../use-t';
import { pageToken, uploadFolder, UploadError, type PickedFolder, type UploadFailure, type UploadOutcome, type UploadProgress } from './upload-client';
import '../../components/skip-groups.css';

export type UploadState =
  | { status: 'idle' }
  | { status: 'uploading'; name: string; progress: UploadProgress | null; failures: UploadFailure[] }
  | { status: 'done'; name: string; path: string; progress: UploadProgress; failures: UploadFailure[]; leftOut: number }
  | { status: 'failed'; name: string | null; code: string; message: string; failures: UploadFailure[] }
  | { status: 'cancelled' };

export interface FolderUpload {
  state: UploadState;
  /** Reads the folder (a drop is walked first), uploads it, then hands its host path (and what was sent) to `onUploaded`. */
  run(folder: Promise<PickedFolder>): Promise<void>;
  cancel(): void;
}

export function useFolderUpload(onUploaded: (path: string, sent: { folder: PickedFolder; outcome: UploadOutcome }) => void | Promise<void>): FolderUpload {
  const [state, setState] = useState<UploadState>({ status: 'idle' });
  const controller = useRef<AbortController | null>(null);

  const run = useCallback(
    async (pending: Promise<PickedFolder>) => {
      if (controller.current) return;
      const abort = new AbortController();
      controller.current = abort;
      let name: string | null = null;
      const failures: UploadFailure[] = [];
      try {
        setState({ status: 'uploading', name: '', progress: null, failures });
        const folder = await pending;
        name = folder.name;
        const token = pageToken(window.location.search);
        if (!token) throw new UploadError('UNAUTHORIZED', 'This page has no access token');
        let last: UploadProgress | null = null;
        const outcome = await uploadFolder(folder, {
          token,
          signal: abort.signal,
          onProgress: (progress) => {
            last = progress;
            setState({ status: 'uploading', name: folder.name, progress, failures: [...failures] });
          },
          onFailure: (failure) => failures.push(failure),
        });
        setState({ status: 'done', name: folder.name, path: outcome.path, progress: last ?? { files: outcome.files, failed: 0, totalFiles: outcome.files, bytes: outcome.bytes, totalBytes: outcome.bytes, current: null }, failures: outcome.failures, leftOut: outcome.leftOut.length });
        controller.current = null;
        const sent = new Set(outcome.sent);
        await onUploaded(outcome.path, { folder: { ...folder, files: folder.files.filter((f) => sent.has(f.path)) }, outcome });
      } catch (error) {
        if (abort.signal.aborted) setState({ status: 'cancelled' });
        else setState({ status: 'failed', name, code: error instanceof UploadError ? error.code : 'IO_ERROR', message: error instanceof Error ? error.message : String(error), failures });
      } finally {
        if (controller.current === abort) controller.current = null;
      }
    },
    [onUploaded],
  );

  const cancel = useCallback(() => controller.current?.abort(), []);
  return { state, run, cancel };
}

/** What the panel says while it reads, when it is cancelled and once done (`{files}`, `{path}`). */
export interface UploadTexts {
  reading: MessageKey;
  cancelled: MessageKey;
  done: MessageKey;
  /** Said once a folder is uploaded: what a browser does with symbolic links. */
  links?: MessageKey;
}

const HOME_TEXTS: UploadTexts = { reading: 'home.upload.reading', cancelled: 'home.upload.cancelled', done: 'home.upload.done', links: 'upload.linksNote' };

export function UploadPanel({ upload, texts = HOME_TEXTS }: { upload: FolderUpload; texts?: UploadTexts }) {
  const t = useT();
  const locale = useApp((s) => s.locale);
  const { state } = upload;
  if (state.status === 'idle') return null;
  if (state.status === 'cancelled') {
    return (
      <p className="banner banner-warn" role="status" data-testid="upload-cancelled">
        {t(texts.cancelled)}
      </p>
    );
  }
  const failures = state.failures;
  const progress = state.status === 'uploading' || state.status === 'done' ? state.progress : null;
  return (
    <section className="panel progress-panel" aria-labelledby="upload-title" data-testid="upload-panel" data-status={state.status}>
      <h2 id="upload-title">{!state.name ? t(texts.reading) : state.status === 'done' ? t('upload.titleDone', { name: state.name }) : t('upload.title', { name: state.name })}</h2>
      {progress && (
        <>
          <div className="progress-line">
            <span data-testid="upload-files">{t('upload.files', { done: formatCount(progress.files, locale), total: formatCount(progress.totalFiles, locale) })}</span>
            <span className="muted" data-testid="upload-bytes">
              {t('upload.bytes', { done: formatBytes(progress.bytes), total: formatBytes(progress.totalBytes) })}
            </span>
          </div>
          <progress max={Math.max(1, progress.totalFiles)} value={progress.files + progress.failed} aria-label={t('upload.progress')} />
          {progress.current && state.status === 'uploading' && (
            <p className="current" title={progress.current}>
              <span className="muted">{t('home.current')}: </span>
              <code>{progress.current}</code>
            </p>
          )}
        </>
      )}
      {state.status === 'uploading' && (
        <button type="button" onClick={upload.cancel} data-testid="upload-cancel">
          {t('upload.cancel')}
        </button>
      )}
      {state.status === 'done' && (
        <p className="note-ok" role="status" data-testid="upload-done">
          {t(texts.done, { files: formatCount(progress?.files ?? 0, locale), path: state.path })}
        </p>
      )}
      {state.status === 'done' && state.leftOut > 0 && (
        <p className="muted" data-testid="upload-left-out">
          {t('upload.leftOut', { count: formatCount(state.leftOut, locale) })}
        </p>
      )}
      {state.status === 'done' && texts.links && <p className="muted">{t(texts.links)}</p>}
      {state.status === 'failed' && (
        <div className="banner banner-error" role="alert" data-testid="upload-error">
          <strong>{t('upload.failed')}</strong> <span className="code">{t('error.code', { code: state.code })}</span>
          <p>{state.message}</p>
        </div>
      )}
      {failures.length > 0 && (
        <details className="skip-group" open={failures.length <= 5} data-testid="upload-failures">
          <summary>{t('upload.failedFiles', { count: failures.length })}</summary>
          <ul className="plain-list small">
            {failures.map((f) => (
              <li key={f.path} data-testid="upload-failure" data-code={f.code}>
                <code>{f.path}</code>: {f.message}
              </li>
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}
