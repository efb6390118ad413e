/**
 * The renderer's Content-Security-Policy, one for both hosts (the desktop app's `app:` protocol
 * and the web host): nothing but the page's own origin, no inline script, no eval, no frames.
 *
 * @example
 * contentSecurityPolicy(); // the app: the renderer reaches the engine through the preload
 * contentSecurityPolicy(['ws://127.0.0.1:5173']); // the web host: and over its WebSocket
 */
export function contentSecurityPolicy(connectSources: readonly string[] = []): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    // React Flow and Monaco set element styles at run time; no inline script is allowed.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    ["connect-src 'self'", ...connectSources].join(' '),
    "worker-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "object-src 'none'",
  ].join('; ');
}
