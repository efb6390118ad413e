/** Small pieces the sessions and memories views share: a message as the conversation shows it, a value bar, the LLM badge. */
import type { Extractor } from '../../../shared/types/memory';
import { labelOf } from '../../i18n';
import { useApp } from '../../stores/stores-context';
import { useT } from '../../use-t';

export function MessageItem({ id, role, speaker, timestamp, text }: { id: string; role: string; speaker?: string; timestamp?: string; text: string }) {
  const locale = useApp((s) => s.locale);
  const t = useT();
  const time = timestamp ? new Date(timestamp).toLocaleString(locale === 'zh' ? 'zh-CN' : 'en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }) : null;
  return (
    <li className={`message message-${role}`} data-testid="message" data-id={id}>
      <div className="message-head">
        <strong>{speaker ?? labelOf(t, 'messageRole', role)}</strong>
        {time && <time dateTime={timestamp}>{time} UTC</time>}
        <code className="message-id">{id}</code>
      </div>
      <p>{text}</p>
    </li>
  );
}

export function Bar({ value, weight }: { value: number; weight?: number }) {
  const pct = Math.max(0, Math.min(1, value)) * 100;
  return (
    <span className="bar" title={value.toFixed(3)}>
      <span className="bar-track">
        <span className="bar-fill" style={{ width: `${pct}%` }} />
      </span>
      <span className="bar-value">
        {value.toFixed(2)}
        {weight !== undefined && ` × ${weight}`}
      </span>
    </span>
  );
}

/** "LLM" on what a model made (an item's bucket, a topic label, a chain, a candidate); nothing for the rules. */
export function MadeByBadge({ extractor }: { extractor: Extractor | undefined }) {
  const t = useT();
  if (extractor?.kind !== 'llm') return null;
  return (
    <span className="badge" data-testid="made-by-llm" title={t('sessions.byLlm.title', { model: extractor.model ?? '' })}>
      {t('sessions.byLlm')}
    </span>
  );
}
