import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { Markdown } from './Markdown';

describe('Markdown', () => {
  it('renders headings, lists, code and tables', () => {
    const html = renderToStaticMarkup(<Markdown text={'# Title\n\n- **one**\n- `two`\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```\ncode\n```'} />);
    expect(html).toContain('<h3>Title</h3>');
    expect(html).toContain('<strong>one</strong>');
    expect(html).toContain('<code>two</code>');
    expect(html).toContain('<td>1</td>');
    expect(html).toContain('<pre><code>code</code></pre>');
  });

  it('shows raw HTML as text and never injects it', () => {
    const html = renderToStaticMarkup(<Markdown text={'Hello <img src=x onerror=alert(1)> <script>alert(2)</script>\n\n<div onclick="x()">block</div>'} />);
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<script');
    expect(html).not.toContain('<div onclick');
    expect(html).toContain('&lt;script&gt;');
  });

  it('keeps only safe links and loads no image', () => {
    const html = renderToStaticMarkup(<Markdown text={'[ok](https://example.com) [bad](javascript:alert(1)) [data](data:text/html,x) ![pic](http://example.com/p.png)'} />);
    expect(html).toContain('href="https://example.com"');
    expect(html).toContain('rel="noopener noreferrer"');
    expect(html).not.toContain('javascript:');
    expect(html).not.toContain('href="data:');
    expect(html).not.toContain('<img');
    expect(html).toContain('[pic]');
  });
});
