/** Small pieces the sessions and memories views share: a message as the conversation shows it, and a value bar. */
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
