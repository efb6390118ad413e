// `npm start`: builds the app, then launches Electron. Where the Electron runtime is missing (its
// binary cannot be downloaded on machines without internet), it says so and serves the same UI
// to a browser with `cairn serve`, which prints the URL to open.
//
//   node scripts/start.mjs [--no-build] [serve options, e.g. --port 4820 --workspace DIR]
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const build = !args.includes('--no-build');
const passThrough = args.filter((arg) => arg !== '--no-build');

function run(command, commandArgs) {
  const result = spawnSync(command, commandArgs, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.status !== 0) {
    process.stderr.write(`start: \`${[command, ...commandArgs].join(' ')}\` failed\n`);
    process.exit(result.status ?? 1);
  }
}

/** The Electron executable, found the way the electron package finds it, without its download. */
function electronBinary() {
  const pkg = join(root, 'node_modules', 'electron');
  const pathFile = join(pkg, 'path.txt');
  const relative = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : null;
  const override = process.env.ELECTRON_OVERRIDE_DIST_PATH;
  if (override) {
    const candidate = join(override, relative ?? 'electron');
    return existsSync(candidate) ? candidate : null;
  }
  if (!relative) return null;
  const candidate = join(pkg, 'dist', relative);
  return existsSync(candidate) ? candidate : null;
}

if (build) {
  process.stderr.write('start: building the main process and the renderer…\n');
  run(process.execPath, ['scripts/build-main.mjs']);
  run(process.execPath, ['node_modules/vite/bin/vite.js', 'build', '--logLevel', 'warn']);
}

const electron = electronBinary();
let child;
if (electron) {
  process.stderr.write(`start: launching Electron (${electron})\n`);
  child = spawn(electron, ['.', ...passThrough], { cwd: root, stdio: 'inherit' });
} else {
  process.stderr.write(
    'start: the Electron runtime is missing (node_modules/electron has no binary, and it cannot be downloaded here).\n' +
      'start: serving the browser mode instead; open the URL printed below.\n',
  );
  child = spawn(process.execPath, ['dist-main/cli.js', 'serve', ...passThrough], { cwd: root, stdio: 'inherit' });
}
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(signal ? 1 : (code ?? 0)));
