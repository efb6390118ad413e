import { describe, expect, it } from 'vitest';
import { contentSecurityPolicy } from './content-security-policy.js';

function directives(csp: string): Map<string, string> {
  return new Map(csp.split('; ').map((d) => [d.slice(0, d.indexOf(' ')), d.slice(d.indexOf(' ') + 1)]));
}

describe('contentSecurityPolicy', () => {
  it('allows nothing but the page itself: no inline script, no eval, nothing remote, no frames', () => {
    const csp = directives(contentSecurityPolicy());
    expect(csp.get('default-src')).toBe("'none'");
    expect(csp.get('script-src')).toBe("'self'");
    expect(csp.get('connect-src')).toBe("'self'");
    expect(csp.get('object-src')).toBe("'none'");
    expect(csp.get('frame-ancestors')).toBe("'none'");
    expect(contentSecurityPolicy()).not.toMatch(/unsafe-eval|https?:|ws:|\*/);
  });

  it("lets the web host's page reach its own WebSocket and nothing else", () => {
    const csp = directives(contentSecurityPolicy(['ws://127.0.0.1:4100']));
    expect(csp.get('connect-src')).toBe("'self' ws://127.0.0.1:4100");
    expect(csp.get('script-src')).toBe("'self'");
  });
});
