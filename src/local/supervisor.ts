import type { Log } from '../log';
import type { Child, ChildExit } from './child';

export interface SupervisedService {
  name: string;
  /** Starts the service and resolves once it is ready. */
  start(): Promise<Child>;
  /** How long stop() waits before SIGKILL. */
  graceMs?: number;
}

const MAX_RESTARTS = 5;
const RESTART_WINDOW_MS = 5 * 60_000;

/**
 * Runs services as children in start order and stops them in reverse. A child that dies
 * unexpectedly is restarted with backoff; one that keeps dying (5 times in 5 minutes) is reported
 * and the whole runtime shuts down cleanly rather than limping on.
 */
export class Supervisor {
  private readonly running: { service: SupervisedService; child: Child }[] = [];
  private stopping = false;

  constructor(
    private readonly log: Log,
    private readonly onFatal: (reason: string) => void,
  ) {}

  async add(service: SupervisedService): Promise<Child> {
    const child = await service.start();
    const entry = { service, child };
    this.running.push(entry);
    this.watch(entry, []);
    return child;
  }

  private watch(entry: { service: SupervisedService; child: Child }, restarts: number[]): void {
    void entry.child.exited.then(async (exit: ChildExit) => {
      if (this.stopping) return;
      const now = Date.now();
      const recent = [...restarts.filter((t) => now - t < RESTART_WINDOW_MS), now];
      const how = exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`;
      if (recent.length > MAX_RESTARTS) {
        this.log.error(`${entry.service.name} keeps exiting (${how}); last output:\n${entry.child.tail()}`);
        this.onFatal(`${entry.service.name} exited ${recent.length} times in ${RESTART_WINDOW_MS / 60_000} minutes`);
        return;
      }
      const delay = Math.min(30_000, 500 * 2 ** (recent.length - 1));
      this.log.warn(`${entry.service.name} exited unexpectedly (${how}); restarting in ${delay} ms`);
      await new Promise((r) => setTimeout(r, delay));
      if (this.stopping) return;
      try {
        entry.child = await entry.service.start();
        this.log.info(`${entry.service.name} restarted (pid ${entry.child.pid})`);
        this.watch(entry, recent);
      } catch (err) {
        this.log.error(`${entry.service.name} could not be restarted: ${(err as Error).message}`);
        this.onFatal(`${entry.service.name} could not be restarted`);
      }
    });
  }

  pidOf(name: string): number | null {
    return this.running.find((e) => e.service.name === name)?.child.pid ?? null;
  }

  async stopAll(): Promise<void> {
    this.stopping = true;
    for (const entry of [...this.running].reverse()) {
      this.log.info(`stopping ${entry.service.name}`);
      await entry.child.stop(entry.service.graceMs ?? 10_000);
    }
    this.running.length = 0;
  }
}
