// Runs a command and measures its wall time and peak resident memory (VmHWM from /proc,
// which covers every thread of the process), without extra packages; `timed` also reads the
// CPU time and peak RSS of the whole process tree from GNU time when it is installed.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

function peakKb(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /VmHWM:\s+(\d+) kB/.exec(status);
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/** @returns {Promise<{ ms: number, peakRssMb: number, code: number|null, stdout: string, stderr: string }>} */
export function measure(command, args, options = {}) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
    let stdout = '';
    let stderr = '';
    let peak = 0;
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setInterval(() => (peak = Math.max(peak, peakKb(child.pid))), 20);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearInterval(timer);
      resolve({ ms: Math.round(performance.now() - started), peakRssMb: Math.round(peak / 1024), code, stdout, stderr });
    });
  });
}

export function machine() {
  return `${process.platform} ${process.arch}, Node ${process.version}, ${(typeof navigator !== 'undefined' && navigator.hardwareConcurrency) || 'n/a'} cores`;
}

/**
 * Runs a command under GNU time (`/usr/bin/time -v`: peak RSS of the process tree, user and
 * system CPU seconds) or, without it, polls /proc for the peak RSS (CPU is then null).
 *
 * @returns {Promise<{ code: number|null, ms: number, cpuSeconds: number|null, peakRssMb: number, stdout: string, stderr: string }>}
 */
export function timed(command, args, options = {}) {
  return new Promise((resolve, reject) => {
    const gnuTime = existsSync('/usr/bin/time');
    const started = performance.now();
    const spawnOptions = { stdio: ['ignore', 'pipe', 'pipe'], ...options };
    const child = gnuTime ? spawn('/usr/bin/time', ['-v', command, ...args], spawnOptions) : spawn(command, args, spawnOptions);
    let stdout = '';
    let stderr = '';
    let polled = 0;
    const poll = gnuTime ? null : setInterval(() => (polled = Math.max(polled, peakKb(child.pid))), 20);
    // stdout may go to a file (options.stdio), so that a large output is not held here.
    child.stdout?.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (poll) clearInterval(poll);
      const ms = performance.now() - started;
      const seconds = (label) => Number(new RegExp(`${label} time \\(seconds\\): ([\\d.]+)`).exec(stderr)?.[1] ?? NaN);
      const cpu = gnuTime ? seconds('User') + seconds('System') : NaN;
      const kb = gnuTime ? Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(stderr)?.[1] ?? 0) : polled;
      resolve({ code, ms: Math.round(ms), cpuSeconds: Number.isFinite(cpu) ? +cpu.toFixed(2) : null, peakRssMb: Math.round(kb / 1024), stdout, stderr });
    });
  });
}
