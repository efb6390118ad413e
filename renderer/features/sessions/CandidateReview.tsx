/**
 * Review before commit (issue 17, item 4): the memories the trigger proposes from the open
 * conversation, each with its category, title, content, confidence and the messages it came
 * from (shown here, or in the conversation), to accept, edit then accept, or reject; "accept
 * all above" a confidence; an update of a memory the person edited shown as a diff.
 */
import { useCallback, useEffect, useState } from 'react';
import type { ProposedCandidate, SessionProposal } from '../../../shared/contracts/api';
import { labelOf } from '../../i18n';
import { localizeChange } from '../../i18n/causes';
import { useApp, useSessions, useStores } from '../../stores/stores-context';
import { useT } from '../../use-t';
import { aboveThreshold, lineDiff } from './candidate-review';
import { MadeByBadge, MessageItem } from './parts';

type Accept = { candidate: string; content?: string };

export function CandidateReview({ conversationId }: { conversationId: string }) {
  const t = useT();
  const { client } = useStores();
  const [proposal, setProposal] = useState<SessionProposal | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [threshold, setThreshold] = useState(0.6);

  const load = useCallback(async () => {
    setError(null);
    try {
      setProposal(await client.call('sessions:propose', { id: conversationId }));
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  }, [client, conversationId]);

  useEffect(() => {
    setProposal(null);
    void load();
  }, [load]);

  const act = async (work: () => Promise<string>) => {
    setBusy(true);
    setError(null);
    try {
      setNote(await work());
      await load();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  const accept = (items: Accept[]) =>
    act(async () => {
      const result = await client.call('sessions:accept', { id: conversationId, accept: items });
      return t('review.accepted', { count: result.changes.filter((c) => c.op !== 'none').length });
    });
  const reject = (ids: string[]) =>
    act(async () => {
      const { rejected } = await client.call('sessions:reject', { id: conversationId, candidates: ids });
      return t('review.rejected', { count: rejected });
    });
  // The person's own version of a pinned memory instead of the machine's update: an edit, and the update set aside.
  const rewrite = (candidate: ProposedCandidate, content: string) =>
    act(async () => {
      await client.call('memories:edit', { id: candidate.before!.id, patch: { content } });
      await client.call('sessions:reject', { id: conversationId, candidates: [candidate.id] });
      return t('review.rewritten');
    });

  if (!proposal) return error ? <p className="field-error" role="alert">{error}</p> : <p className="muted">{t('sessions.analyzing')}</p>;
  const above = aboveThreshold(proposal.candidates, threshold);
  return (
    <section className="panel candidate-review" data-testid="candidate-review">
      <h3>
        {t('review.title')} <span className="badge">{proposal.candidates.length}</span>
      </h3>
      <p className="muted small">{t('review.lead', { known: proposal.known, rejected: proposal.rejected })}</p>
      <div className="row review-threshold">
        <label>
          <span>{t('review.threshold')}</span>
          <input type="range" min={0} max={1} step={0.01} value={threshold} onChange={(e) => setThreshold(Number(e.target.value))} data-testid="review-threshold" />
          <input type="number" min={0} max={1} step={0.01} value={threshold} onChange={(e) => setThreshold(Number(e.target.value))} className="review-threshold-number" />
        </label>
        <button type="button" disabled={busy || above.length === 0} onClick={() => void accept(above.map((c) => ({ candidate: c.id })))} data-testid="review-accept-above">
          {t('review.acceptAbove', { count: above.length })}
        </button>
      </div>
      {note && <p className="muted" role="status">{note}</p>}
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
      {proposal.candidates.length === 0 && <p className="muted">{t('review.none')}</p>}
      <ol className="plain-list review-list">
        {proposal.candidates.map((c) => (
          <CandidateCard
            key={c.id}
            candidate={c}
            busy={busy}
            onAccept={(content) => void (content === undefined ? accept([{ candidate: c.id }]) : c.kind === 'update' ? rewrite(c, content) : accept([{ candidate: c.id, content }]))}
            onReject={() => void reject([c.id])}
          />
        ))}
      </ol>
    </section>
  );
}

function CandidateCard({ candidate: c, busy, onAccept, onReject }: { candidate: ProposedCandidate; busy: boolean; onAccept: (content?: string) => void; onReject: () => void }) {
  const t = useT();
  const locale = useApp((s) => s.locale);
  const [draft, setDraft] = useState<string | null>(null);
  return (
    <li className={`review-card review-${c.kind}`} data-testid="review-candidate" data-kind={c.kind}>
      <header className="row">
        <span className="badge">{labelOf(t, 'category', c.candidate.category)}</span>
        <strong>{c.candidate.title}</strong>
        <MadeByBadge extractor={c.candidate.extractor} />
        <span className="muted small">
          {t('review.confidence', { value: c.candidate.confidence.toFixed(2) })}
          {c.auto ? ` · ${t('review.auto')}` : ''} · {t(`review.kind.${c.kind}`)}
        </span>
      </header>
      {draft !== null ? (
        <textarea className="review-edit" value={draft} onChange={(e) => setDraft(e.target.value)} rows={Math.min(12, draft.split('\n').length + 1)} autoFocus data-testid="review-edit" />
      ) : c.kind === 'update' && c.before && c.after ? (
        <pre className="review-diff" data-testid="review-diff">
          {lineDiff(c.before.content, c.after.content).map((line, i) => (
            <div key={i} className={`diff-${line.op}`}>
              {line.op === 'added' ? '+ ' : line.op === 'removed' ? '− ' : '  '}
              {line.text}
            </div>
          ))}
        </pre>
      ) : (
        <p className="memory-content">{c.candidate.content}</p>
      )}
      <p className="muted small" data-testid="review-reason">
        {localizeChange(c, locale)}
      </p>
      <SourceMessages ids={c.candidate.message_ids} />
      <div className="row review-actions">
        {draft === null ? (
          <>
            <button type="button" className="primary" disabled={busy} onClick={() => onAccept()} data-testid="review-accept">
              {t('review.accept')}
            </button>
            <button type="button" disabled={busy} onClick={() => setDraft(c.kind === 'update' ? (c.after?.content ?? c.candidate.content) : c.candidate.content)} data-testid="review-edit-start">
              {t('review.edit')}
            </button>
            <button type="button" disabled={busy} onClick={onReject} data-testid="review-reject">
              {t('review.reject')}
            </button>
          </>
        ) : (
          <>
            <button type="button" className="primary" disabled={busy || draft.trim() === ''} onClick={() => onAccept(draft.trim())} data-testid="review-accept-edited">
              {t('review.acceptEdited')}
            </button>
            <button type="button" onClick={() => setDraft(null)}>
              {t('review.cancel')}
            </button>
          </>
        )}
      </div>
    </li>
  );
}

/** The messages a candidate came from, read here; "show in conversation" opens the Messages tab at the first. */
function SourceMessages({ ids }: { ids: string[] }) {
  const t = useT();
  const conversation = useSessions((s) => s.conversation);
  const setTab = useSessions((s) => s.setTab);
  const messages = (conversation?.sessions ?? []).flatMap((s) => s.messages).filter((m) => ids.includes(m.id));
  const show = () => {
    setTab('messages');
    // After the tab has rendered its messages.
    requestAnimationFrame(() => document.querySelector(`[data-testid="message"][data-id="${CSS.escape(ids[0] ?? '')}"]`)?.scrollIntoView({ block: 'center' }));
  };
  return (
    <details className="review-sources">
      <summary>
        {t('review.sources', { count: ids.length })} <code className="message-id">{ids.join(', ')}</code>
      </summary>
      <ol className="messages">
        {messages.map((m) => (
          <MessageItem key={m.id} id={m.id} role={m.role} speaker={m.speaker} timestamp={m.timestamp} text={m.text} />
        ))}
      </ol>
      <button type="button" onClick={show} data-testid="review-show-messages">
        {t('review.showInConversation')}
      </button>
    </details>
  );
}
