import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { DagRunResult } from '../../../shared/contracts/api';
import type { CauseCount } from '../../../shared/llm-cause';
import type { CairnClient } from '../../api/client';
import { createStores } from '../../stores';
import { StoresProvider } from '../../stores/stores-context';
import { SummaryBadge } from './SummaryBadge';

const ROOT = 'ctx://resources/station/';
const HTTP_500 = { code: 'http_status', status: 500, message: 'injected fault' } as const;
const run = (fallbacks: number, causes: CauseCount[]): DagRunResult => ({
  root: ROOT, dirs_total: 3, dirs_done: 3, files_total: 30, files_done: 30, llm_calls: 33 - fallbacks,
  dirsSummarized: 3, dirsReused: 0, filesSummarized: 30, fallbacks, fallback_causes: causes, failed: 0, tokens: 900, ms: 1200,
});

function render(result: DagRunResult | null, current = true, noted?: Pick<DagRunResult, 'fallbacks' | 'fallback_causes'>, locale: 'en' | 'zh' = 'en') {
  const stores = createStores({ call: async () => ({}), onEvents: () => () => {}, onStatus: () => () => {} } as unknown as CairnClient, locale);
  if (result) stores.ingest.getState().applyEvents([{ type: 'dag/finished', root: ROOT, messageId: 'm1', result }]);
  // A server render reads a zustand store's initial state: let it read the state the events made.
  stores.ingest.getInitialState = stores.ingest.getState;
  return renderToStaticMarkup(
    <StoresProvider stores={stores}>
      <SummaryBadge root={ROOT} current={current} noted={noted}>
        <span>as listed</span>
      </SummaryBadge>
    </StoresProvider>,
  );
}

describe("Home's summary badge", () => {
  it('says how many summaries fell back, in the warning colour, with the causes grouped', () => {
    const html = render(run(29, [{ cause: { code: 'invalid_json' }, count: 2 }, { cause: HTTP_500, count: 27 }]));
    expect(html).toContain('summarized with 29 fallbacks');
    expect(html).toContain('state-fallbacks');
    expect(html).not.toContain('state-summarized');
    // Most frequent first, in the tooltip and in the line that opens.
    expect(html).toContain(`title="27 × HTTP 500 &#x27;injected fault&#x27;, 2 × invalid JSON"`);
    expect(html.indexOf('27 × HTTP 500')).toBeLessThan(html.lastIndexOf('2 × invalid JSON'));
  });

  it('is plain green without fallbacks, and shows the listed state without a run or while a newer one is going', () => {
    expect(render(run(0, []))).toContain('state-summarized');
    expect(render(run(0, []))).toContain('>summarized<');
    expect(render(null)).toBe('<span>as listed</span>');
    expect(render(run(3, [{ cause: { code: 'timeout' }, count: 3 }]), false)).toBe('<span>as listed</span>');
  });

  it('after a restart, shows the run the workspace noted; a run seen since wins', () => {
    // Noted before causes were structured: the cause is its English text, shown as it is.
    const noted = { fallbacks: 2, fallback_causes: [{ cause: 'timeout after 60000 ms', count: 2 }] };
    const html = render(null, true, noted);
    expect(html).toContain('summarized with 2 fallbacks');
    expect(html).toContain('2 × timeout after 60000 ms');
    expect(render(run(0, []), true, noted)).toContain('state-summarized');
    expect(render(null, false, noted)).toBe('<span>as listed</span>');
  });

  it('on a Chinese page, says each cause in Chinese from its structure, the server’s words kept', () => {
    const html = render(run(3, [{ cause: HTTP_500, count: 2 }, { cause: { code: 'timeout', timeout_ms: 60000 }, count: 1 }]), true, undefined, 'zh');
    expect(html).toContain('2 × HTTP 500 &#x27;injected fault&#x27;');
    expect(html).toContain('1 × 60000 毫秒后超时');
    expect(html).not.toContain('timeout after');
  });
});
