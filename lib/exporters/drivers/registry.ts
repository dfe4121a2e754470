import type { Exporter, HttpConfig } from '../domain/exporter.js';
import type { Driver } from './driver.js';
import { httpDriver } from './http.js';
import { stdoutDriver } from './stdout.js';

export interface DriverSettings {
  allowLoopback: boolean;
  /** Where the stdout driver writes (the process's standard output unless a test listens). */
  writeLine?: (line: string) => void;
  httpTimeoutMs?: number;
}

/** The driver an exporter names, built from its (already checked) configuration. */
export function driverFor(exporter: Exporter, settings: DriverSettings): Driver {
  switch (exporter.driver) {
    case 'http':
      return httpDriver(exporter.config as HttpConfig, {
        allowLoopback: settings.allowLoopback,
        ...(settings.httpTimeoutMs ? { timeoutMs: settings.httpTimeoutMs } : {}),
      });
    case 'stdout':
      return stdoutDriver(settings.writeLine ?? ((line) => process.stdout.write(`${line}\n`)));
  }
}
