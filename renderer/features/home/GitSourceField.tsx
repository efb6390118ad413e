/**
 * Home's "Ingest a git repository": a URL and an optional ref, handed to ingest:start as a git
 * source (the engine clones it and ingests the checkout; see main/engine/ingest/git-source.ts).
 * Progress, result and errors show in Home's panels like any ingest's. The URL and ref are
 * checked here with the engine's own rules, so a refused one says why before anything starts.
 */
import { useState, type FormEvent } from 'react';
import { checkGitRef, checkGitUrl } from '../../../shared/git-url';
import { useIngest } from '../../stores/stores-context';
import { useT } from '../../use-t';

export function GitSourceField() {
  const t = useT();
  const status = useIngest((s) => s.status);
  const start = useIngest((s) => s.start);
  const [url, setUrl] = useState('');
  const [ref, setRef] = useState('');
  const [invalid, setInvalid] = useState<string | null>(null);

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    try {
      checkGitUrl(url);
      if (ref.trim()) checkGitRef(ref);
    } catch (error) {
      setInvalid(url.trim() ? (error as Error).message : t('home.git.urlRequired'));
      return;
    }
    setInvalid(null);
    void start({ git: { url: url.trim(), ...(ref.trim() ? { ref: ref.trim() } : {}) } });
  };

  return (
    <form className="ingest-form git-source" onSubmit={onSubmit} aria-labelledby="git-source-title" data-testid="git-source">
      <h2 id="git-source-title">{t('home.git.title')}</h2>
      <label className="field grow">
        <span>{t('home.git.url')}</span>
        <input
          type="text"
          name="git-url"
          value={url}
          placeholder={t('home.git.urlPlaceholder')}
          onChange={(e) => setUrl(e.target.value)}
          aria-invalid={invalid !== null || undefined}
          aria-describedby={invalid ? 'git-url-error' : undefined}
          spellCheck={false}
          autoComplete="off"
          data-testid="git-url"
        />
        {invalid && (
          <span id="git-url-error" className="field-error">
            {invalid}
          </span>
        )}
      </label>
      <label className="field">
        <span>{t('home.git.ref')}</span>
        <input type="text" name="git-ref" value={ref} placeholder={t('home.git.refPlaceholder')} onChange={(e) => setRef(e.target.value)} spellCheck={false} autoComplete="off" data-testid="git-ref" />
      </label>
      <div className="form-actions">
        <button type="submit" disabled={status === 'running'} data-testid="git-start">
          {t('home.git.start')}
        </button>
      </div>
      <p className="muted git-source-hint">{t('home.git.hint')}</p>
    </form>
  );
}
