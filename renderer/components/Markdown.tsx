/**
 * Renders Markdown (an L1 overview) as React elements from `marked`'s tokens: no HTML string is
 * ever injected, so raw HTML in a summary shows as text. Links work only for http(s) and mailto
 * and open outside the app; images are not loaded (a summary must not make the page fetch
 * anything), their alt text is shown instead.
 */
import { marked, type Token, type Tokens } from 'marked';
import { memo, type ReactNode } from 'react';
import './markdown.css';

const SAFE_LINK = /^(https?:|mailto:)/i;

function inline(tokens: readonly Token[] | undefined, key: string): ReactNode[] {
  return (tokens ?? []).map((token, i) => inlineToken(token, `${key}.${i}`));
}

function inlineToken(token: Token, key: string): ReactNode {
  switch (token.type) {
    case 'text': {
      const text = token as Tokens.Text;
      return text.tokens && text.tokens.length > 0 ? <span key={key}>{inline(text.tokens, key)}</span> : text.text;
    }
    case 'escape':
      return (token as Tokens.Escape).text;
    case 'strong':
      return <strong key={key}>{inline((token as Tokens.Strong).tokens, key)}</strong>;
    case 'em':
      return <em key={key}>{inline((token as Tokens.Em).tokens, key)}</em>;
    case 'del':
      return <del key={key}>{inline((token as Tokens.Del).tokens, key)}</del>;
    case 'codespan':
      return <code key={key}>{(token as Tokens.Codespan).text}</code>;
    case 'br':
      return <br key={key} />;
    case 'link': {
      const link = token as Tokens.Link;
      const children = inline(link.tokens, key);
      if (!SAFE_LINK.test(link.href.trim())) return <span key={key}>{children}</span>;
      return (
        <a key={key} href={link.href} title={link.title ?? undefined} target="_blank" rel="noopener noreferrer">
          {children}
        </a>
      );
    }
    case 'image': {
      const image = token as Tokens.Image;
      return (
        <span key={key} className="md-image" title={image.href}>
          [{image.text || 'image'}]
        </span>
      );
    }
    case 'checkbox':
      return <input key={key} type="checkbox" checked={(token as Tokens.Checkbox).checked} disabled readOnly />;
    case 'html':
      return (token as Tokens.HTML).text;
    default:
      return 'raw' in token ? String(token.raw) : null;
  }
}

function block(token: Token, key: string): ReactNode {
  switch (token.type) {
    case 'space':
      return null;
    case 'heading': {
      const heading = token as Tokens.Heading;
      const Tag = `h${Math.min(6, Math.max(1, heading.depth + 2))}` as 'h3';
      return <Tag key={key}>{inline(heading.tokens, key)}</Tag>;
    }
    case 'paragraph':
      return <p key={key}>{inline((token as Tokens.Paragraph).tokens, key)}</p>;
    case 'text': {
      const text = token as Tokens.Text;
      return <p key={key}>{text.tokens ? inline(text.tokens, key) : text.text}</p>;
    }
    case 'code':
      return (
        <pre key={key}>
          <code>{(token as Tokens.Code).text}</code>
        </pre>
      );
    case 'blockquote':
      return <blockquote key={key}>{blocks((token as Tokens.Blockquote).tokens, key)}</blockquote>;
    case 'hr':
      return <hr key={key} />;
    case 'list': {
      const list = token as Tokens.List;
      const items = list.items.map((item, i) => (
        <li key={`${key}.${i}`}>{item.tokens.map((child, j) => (child.type === 'text' || child.type === 'checkbox' ? inlineToken(child, `${key}.${i}.${j}`) : block(child, `${key}.${i}.${j}`)))}</li>
      ));
      return list.ordered ? (
        <ol key={key} start={typeof list.start === 'number' ? list.start : undefined}>
          {items}
        </ol>
      ) : (
        <ul key={key}>{items}</ul>
      );
    }
    case 'table': {
      const table = token as Tokens.Table;
      const align = (i: number) => table.align[i] ?? undefined;
      return (
        <table key={key}>
          <thead>
            <tr>
              {table.header.map((cell, i) => (
                <th key={i} style={{ textAlign: align(i) }}>
                  {inline(cell.tokens, `${key}.h${i}`)}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {table.rows.map((row, r) => (
              <tr key={r}>
                {row.map((cell, i) => (
                  <td key={i} style={{ textAlign: align(i) }}>
                    {inline(cell.tokens, `${key}.${r}.${i}`)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      );
    }
    case 'html':
      return (
        <pre key={key} className="md-html">
          {(token as Tokens.HTML).text}
        </pre>
      );
    default:
      return 'raw' in token ? <p key={key}>{String(token.raw)}</p> : null;
  }
}

function blocks(tokens: readonly Token[], key: string): ReactNode[] {
  return tokens.map((token, i) => block(token, `${key}.${i}`));
}

export const Markdown = memo(function Markdown({ text }: { text: string }) {
  const tokens = marked.lexer(text, { gfm: true });
  return <div className="markdown">{blocks(tokens, 'md')}</div>;
});
