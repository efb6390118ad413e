// Runs a command and measures its wall time and peak resident memory (VmHWM from /proc,
// which covers every thread of the process), without extra packages.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

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
