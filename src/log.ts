/**
 * Human-readable logging to stderr: `12:00:01 info  [lore] message {fields}`. The API's request
 * logs stay off by default; errors carry the request id so a 500 can be traced.
 */

export type Level = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Log {
  debug(obj: unknown, msg?: string): void;
  info(obj: unknown, msg?: string): void;
  warn(obj: unknown, msg?: string): void;
  error(obj: unknown, msg?: string): void;
  child(name: string): Log;
}

function render(obj: unknown, msg?: string): string {
  if (typeof obj === 'string') return msg ? `${obj} ${msg}` : obj;
  if (obj instanceof Error) return `${msg ?? obj.message}${msg ? `: ${obj.message}` : ''}\n${obj.stack ?? ''}`;
  const fields = { ...(obj as Record<string, unknown>) };
  let stack = '';
  if (fields.err instanceof Error) {
    stack = `\n${fields.err.stack ?? fields.err.message}`;
    fields.err = fields.err.message;
  }
  const extra = Object.keys(fields).length ? ` ${JSON.stringify(fields)}` : '';
  return `${msg ?? ''}${extra}${stack}`;
}

export function createLog(level: Level = 'info', name = 'lore', write: (line: string) => void = (l) => process.stderr.write(l)): Log {
  const min = ORDER[level];
  const at = (lvl: Level) => (obj: unknown, msg?: string) => {
    if (ORDER[lvl] < min) return;
    const time = new Date().toISOString().slice(11, 19);
    write(`${time} ${lvl.padEnd(5)} [${name}] ${render(obj, msg)}\n`);
  };
  return {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: (child: string) => createLog(level, child, write),
  };
}

/** For tests and libraries that want silence. */
export const silentLog: Log = { debug() {}, info() {}, warn() {}, error() {}, child: () => silentLog };
