/**
 * The context menu of a tree node (right click, or the context-menu key / Shift+F10 on a focused
 * row): Remove… asks first, naming what goes (N files, M sections, from fs:rm's dry run);
 * Rename… asks for the new name. Escape or a click outside closes it.
 */
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useStores } from '../../stores/stores-context';
import { useT } from '../../use-t';
import { isValidName, planRemoval, removeNode, renameNode, type RemovalPlan } from './manage-node';
import './node-menu.css';

export interface NodeMenuTarget {
  uri: string;
  name: string;
  x: number;
  y: number;
}

type Step = { kind: 'menu' } | { kind: 'remove'; plan: RemovalPlan | null } | { kind: 'rename'; name: string };

export function NodeMenu({ target, onClose }: { target: NodeMenuTarget; onClose(): void }) {
  const t = useT();
  const { client, explorer } = useStores();
  const [step, setStep] = useState<Step>({ kind: 'menu' });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const box = useRef<HTMLDivElement>(null);

  useEffect(() => {
    box.current?.querySelector<HTMLElement>('[data-autofocus]')?.focus();
  }, [step.kind]);

  useEffect(() => {
    const onPointer = (event: MouseEvent) => {
      if (!busy && box.current && !box.current.contains(event.target as Node)) onClose();
    };
    document.addEventListener('mousedown', onPointer);
    return () => document.removeEventListener('mousedown', onPointer);
  }, [busy, onClose]);

  const run = async (work: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await work();
      onClose();
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setBusy(false);
    }
  };

  const askRemove = () => {
    setStep({ kind: 'remove', plan: null });
    planRemoval(client, target.uri).then(
      (plan) => setStep((current) => (current.kind === 'remove' ? { kind: 'remove', plan } : current)),
      (failure: unknown) => setError(failure instanceof Error ? failure.message : String(failure)),
    );
  };

  const onRename = (event: FormEvent) => {
    event.preventDefault();
    if (step.kind !== 'rename' || !isValidName(step.name)) return;
    void run(() => renameNode(client, explorer, target.uri, step.name));
  };

  return (
    <div
      ref={box}
      className="node-menu"
      style={{ position: 'fixed', left: target.x, top: target.y, zIndex: 20 }}
      onKeyDown={(event) => {
        if (event.key === 'Escape' && !busy) {
          event.stopPropagation();
          onClose();
        }
      }}
      data-testid="node-menu"
    >
      {step.kind === 'menu' && (
        <ul role="menu" aria-label={t('explorer.manage.menu', { name: target.name })}>
          <li role="menuitem" tabIndex={0} data-autofocus onClick={askRemove} onKeyDown={(e) => e.key === 'Enter' && askRemove()}>
            {t('explorer.manage.remove')}
          </li>
          <li
            role="menuitem"
            tabIndex={0}
            onClick={() => setStep({ kind: 'rename', name: target.name })}
            onKeyDown={(e) => e.key === 'Enter' && setStep({ kind: 'rename', name: target.name })}
          >
            {t('explorer.manage.rename')}
          </li>
        </ul>
      )}
      {step.kind === 'remove' && (
        <div role="alertdialog" aria-label={t('explorer.manage.removeTitle', { uri: target.uri })}>
          <p>
            <strong>{t('explorer.manage.removeTitle', { uri: target.uri })}</strong>
          </p>
          <p data-testid="remove-counts">{step.plan ? t('explorer.manage.removeCounts', { ...step.plan }) : t('explorer.manage.counting')}</p>
          <button type="button" className="danger" disabled={!step.plan || busy} onClick={() => void run(() => removeNode(client, explorer, target.uri))}>
            {busy ? t('explorer.manage.working') : t('explorer.manage.removeConfirm')}
          </button>
          <button type="button" data-autofocus disabled={busy} onClick={onClose}>
            {t('explorer.manage.cancel')}
          </button>
        </div>
      )}
      {step.kind === 'rename' && (
        <form role="dialog" aria-label={t('explorer.manage.renameTitle', { uri: target.uri })} onSubmit={onRename}>
          <label>
            {t('explorer.manage.newName')}{' '}
            <input data-autofocus value={step.name} disabled={busy} onChange={(event) => setStep({ kind: 'rename', name: event.target.value })} aria-invalid={!isValidName(step.name)} />
          </label>
          {!isValidName(step.name) && <p className="muted">{t('explorer.manage.badName')}</p>}
          <button type="submit" disabled={busy || !isValidName(step.name) || step.name.trim() === target.name}>
            {busy ? t('explorer.manage.working') : t('explorer.manage.renameConfirm')}
          </button>
          <button type="button" disabled={busy} onClick={onClose}>
            {t('explorer.manage.cancel')}
          </button>
        </form>
      )}
      {error && (
        <p className="banner banner-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
