import type { Config } from '../src/config';
import type { Clock } from '../src/model/clock';
import type { Log } from '../src/log';
import type { Database } from '../src/store/database';

/** What activities may use: the store, the clock, config and a log. Built once per worker. */
export interface ActivityDeps {
  config: Config;
  db: Database;
  clock: Clock;
  log: Log;
}
