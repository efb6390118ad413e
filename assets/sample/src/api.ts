/**
 * The base server's HTTP API: readings in, forecasts out.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

export interface Reading {
  stationId: number;
  windowStart: string;
  quantity: 'wind' | 'pressure' | 'water_level' | 'temperature';
  mean: number;
  flagged: boolean;
}

export interface Forecast {
  issuedAt: string;
  windKnots: number;
  gustKnots: number;
  staleStations: number[];
}

/** Readings older than two windows are shown as stale (decided after the May storm). */
export const STALE_AFTER_MS = 2 * 10 * 60 * 1000;

export class ReadingStore {
  private readonly readings: Reading[] = [];

  add(reading: Reading): void {
    this.readings.push(reading);
  }

  latest(stationId: number): Reading | undefined {
    return this.readings.filter((r) => r.stationId === stationId).at(-1);
  }

  staleStations(now: Date, stationIds: number[]): number[] {
    return stationIds.filter((id) => {
      const last = this.latest(id);
      return !last || now.getTime() - Date.parse(last.windowStart) > STALE_AFTER_MS;
    });
  }
}

export function startApi(store: ReadingStore, port: number) {
  return createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.url === '/forecast') {
      const forecast: Forecast = { issuedAt: new Date().toISOString(), windKnots: 0, gustKnots: 0, staleStations: store.staleStations(new Date(), [1, 2, 3]) };
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(forecast));
      return;
    }
    res.statusCode = 404;
    res.end();
  }).listen(port, '127.0.0.1');
}
