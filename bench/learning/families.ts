/**
 * The paraphrase set of the learning quality benchmark (bench/learning/quality.ts): task
 * families, each learned from the `train` phrasings (one execution each) and queried with the
 * held-out `test` phrasings, written to share as few words with the training ones as a person
 * describing the same task naturally would. `unseen` are tasks no family covers.
 */

export interface Family {
  kind: string;
  file: string;
  first: string;
  rest: string[];
  train: string[];
  test: string[];
}

const f = (kind: string, file: string, first: string, rest: string[], train: string[], test: string[]): Family => ({ kind, file, first, rest, train, test });

export const FAMILIES: Family[] = [
  f(
    'fix_flaky_test',
    'src/jobs/worker.ts',
    'read',
    ['edit', 'test'],
    ['fix flaky retry in worker.ts', 'retry test in the job worker fails intermittently', 'worker retry logic is nondeterministic, make it reliable'],
    ['repair the sporadic retry failure in the background worker', 'the queue processor sometimes does not re-attempt failed jobs'],
  ),
  f(
    'fix_auth_expiry',
    'app/auth/token.py',
    'read',
    ['edit', 'bash'],
    ['fix JWT refresh for expired tokens', 'expired access tokens are not refreshed', 'token refresh breaks after expiry'],
    ['users get logged out when their session credential times out', 'renewal of the bearer credential fails once it lapses'],
  ),
  f(
    'speed_csv_export',
    'src/reports/export.ts',
    'grep',
    ['read', 'edit', 'test'],
    ['speed up the CSV export of invoices', 'invoice CSV export is too slow', 'optimize invoice export to CSV'],
    ['downloading the billing spreadsheet takes minutes', 'make generating the invoices file faster'],
  ),
  f(
    'add_dark_mode',
    'web/src/settings/Theme.tsx',
    'edit',
    ['test'],
    ['add a dark mode toggle to the settings page', 'settings page needs a dark theme switch', 'implement dark mode option in settings'],
    ['let people pick a night color scheme in preferences', 'offer a low-light appearance choice on the preferences screen'],
  ),
  f(
    'fix_memory_leak',
    'src/server/cache.go',
    'bash',
    ['read', 'edit'],
    ['fix memory leak in the response cache', 'response cache keeps growing and leaks memory', 'cache entries never evicted, RSS grows'],
    ['server RAM usage climbs until it is OOM killed', 'the process footprint keeps rising because stored responses are never freed'],
  ),
  f(
    'migrate_db_schema',
    'db/migrations/0042_orders.sql',
    'read',
    ['edit', 'bash'],
    ['add a migration for the orders status column', 'orders table needs a status column migration', 'write schema migration adding order status'],
    ['alter the purchases relation to record fulfilment state', 'new field on the order records tracking where each purchase is'],
  ),
  f(
    'fix_timezone_bug',
    'src/calendar/recurrence.ts',
    'test',
    ['read', 'edit'],
    ['fix timezone bug in recurring events', 'recurring events shift by an hour after DST', 'daylight saving breaks event recurrence'],
    ['weekly meetings show up at the wrong hour in March', 'repeating calendar entries move when clocks change'],
  ),
  f(
    'upgrade_dependency',
    'package.json',
    'bash',
    ['edit', 'test'],
    ['upgrade express to version 5', 'bump express dependency to 5.x', 'update the express package to the new major'],
    ['move the web framework to its latest major release', 'our HTTP server library is outdated, raise it to the current version'],
  ),
  f(
    'fix_null_pointer',
    'src/main/java/com/acme/OrderService.java',
    'read',
    ['edit', 'test'],
    ['fix NullPointerException in OrderService', 'OrderService throws NPE when customer is missing', 'null customer crashes order service'],
    ['placing an order without a buyer blows up the backend', 'checkout errors out when no client record is attached'],
  ),
  f(
    'add_rate_limit',
    'src/api/middleware/ratelimit.ts',
    'edit',
    ['test'],
    ['add rate limiting to the public API', 'public API needs request rate limits', 'throttle requests per API key'],
    ['stop clients from hammering our endpoints', 'cap how many calls each token can make per minute'],
  ),
  f(
    'fix_css_layout',
    'web/src/components/Navbar.css',
    'edit',
    ['bash'],
    ['fix navbar layout on mobile', 'navbar overlaps content on small screens', 'mobile navigation bar is broken'],
    ['the top menu covers the page on phones', 'header links wrap badly on narrow viewports'],
  ),
  f(
    'fix_parser_unicode',
    'src/parser/lexer.rs',
    'test',
    ['read', 'edit'],
    ['fix lexer crash on unicode identifiers', 'lexer panics on non-ascii identifiers', 'unicode names break the tokenizer'],
    ['scanning source with accented variable names aborts', 'emoji in symbol names make tokenization blow up'],
  ),
  f(
    'improve_search_ranking',
    'src/search/rank.py',
    'read',
    ['edit', 'test'],
    ['improve search ranking for product titles', 'product search results are badly ordered', 'tune relevance scoring for product search'],
    ['shoppers find the wrong items first when they look something up', 'the catalogue lookup surfaces irrelevant goods at the top'],
  ),
  f(
    'fix_email_encoding',
    'src/mail/templates.py',
    'grep',
    ['read', 'edit'],
    ['fix garbled characters in notification emails', 'notification emails show broken accents', 'email templates mangle UTF-8'],
    ['customers receive messages with question marks instead of letters', 'outgoing newsletters display mojibake'],
  ),
  f(
    'add_pagination',
    'src/api/routes/users.ts',
    'read',
    ['edit', 'test'],
    ['add pagination to the users list endpoint', 'users endpoint returns everything, paginate it', 'cursor pagination for list users'],
    ['the member listing route should return results page by page', 'fetching all accounts at once is too heavy; split into pages'],
  ),
  f(
    'fix_docker_build',
    'Dockerfile',
    'bash',
    ['edit'],
    ['fix the docker image build failure', 'docker build fails on the base image', 'container build broken after base image update'],
    ['our image no longer compiles in CI', 'building the container for deployment errors out'],
  ),
  f(
    'write_api_docs',
    'docs/api.md',
    'read',
    ['edit'],
    ['document the webhook API', 'write docs for the webhook endpoints', 'webhook API documentation is missing'],
    ['explain to integrators how callbacks are delivered', 'describe the event notification interface for partners'],
  ),
  f(
    'fix_race_condition',
    'src/sync/lock.go',
    'test',
    ['read', 'edit'],
    ['fix race condition in the lock manager', 'lock manager has a data race', 'concurrent lock acquisition races'],
    ['two goroutines grab the same mutex at once', 'simultaneous callers both think they hold the lease'],
  ),
  f(
    'add_feature_flag',
    'src/flags/registry.ts',
    'edit',
    ['test'],
    ['add a feature flag for the new checkout', 'new checkout should be behind a feature flag', 'gate the checkout redesign with a flag'],
    ['let us turn the redesigned purchase flow on and off at runtime', 'toggle the revamped payment page per customer'],
  ),
  f(
    'fix_sql_injection',
    'src/db/queries.php',
    'grep',
    ['read', 'edit'],
    ['fix SQL injection in the search query', 'search query concatenates user input into SQL', 'parameterize the search SQL to stop injection'],
    ['attackers can tamper with the lookup statement through the form', 'escape or bind the visitor-supplied filter in the database call'],
  ),
  f(
    'fix_upload_limit',
    'src/upload/handler.ts',
    'read',
    ['edit', 'test'],
    ['fix large file uploads failing', 'uploads over 10MB fail', 'raise the upload size limit'],
    ['attaching big documents errors out', 'people cannot send attachments bigger than a few megabytes'],
  ),
  f(
    'refactor_payment_module',
    'src/payments/processor.ts',
    'read',
    ['edit', 'test'],
    ['refactor the payment processor module', 'restructure the payments code', 'clean up the payment processing class'],
    ['tidy the billing charge logic into smaller units', 'reorganize how card charges are handled in code'],
  ),
  f(
    'fix_i18n_missing',
    'locales/de.json',
    'grep',
    ['edit'],
    ['add missing German translations', 'German locale has untranslated strings', 'fill in missing de translations'],
    ['some labels still appear in English for users in Germany', 'complete the localisation for German speakers'],
  ),
  f(
    'fix_cron_schedule',
    'ops/cron/backup.yaml',
    'read',
    ['edit'],
    ['fix the nightly backup cron schedule', 'backup cron job runs at the wrong time', 'nightly backups are scheduled incorrectly'],
    ['the periodic snapshot of data kicks off at noon instead of midnight', 'our scheduled archive task fires at the wrong hour'],
  ),
  f(
    'add_healthcheck',
    'src/server/health.ts',
    'edit',
    ['test'],
    ['add a health check endpoint', 'service needs a health endpoint for the load balancer', 'expose /health for liveness probes'],
    ['kubernetes wants a readiness route to poll', 'give the orchestrator a way to know the app is alive'],
  ),
  f(
    'fix_websocket_reconnect',
    'web/src/realtime/socket.ts',
    'read',
    ['edit', 'test'],
    ['fix websocket reconnect after network loss', 'websocket does not reconnect when wifi drops', 'realtime socket stays dead after disconnect'],
    ['live updates stop for good once the laptop goes offline briefly', 'the push channel never comes back after connectivity hiccups'],
  ),
  f(
    'fix_pdf_rendering',
    'src/docs/pdf.py',
    'bash',
    ['read', 'edit'],
    ['fix PDF rendering of tables', 'tables are cut off in generated PDFs', 'PDF export breaks table layout'],
    ['printed reports lose the right columns of grids', 'grids overflow the page in the downloadable report'],
  ),
  f(
    'add_audit_log',
    'src/audit/logger.ts',
    'edit',
    ['test'],
    ['add audit logging for admin actions', 'record admin actions in an audit log', 'admin operations need an audit trail'],
    ['keep a history of what administrators change', 'track who did what in the back office for compliance'],
  ),
  f(
    'fix_image_thumbnail',
    'src/media/thumbs.go',
    'test',
    ['read', 'edit'],
    ['fix thumbnails generated upside down', 'thumbnail images are rotated wrongly', 'EXIF orientation ignored when making thumbnails'],
    ['preview pictures from phones appear sideways', 'small previews of photos do not respect camera rotation'],
  ),
  f(
    'fix_ci_cache',
    '.github/workflows/ci.yml',
    'read',
    ['edit'],
    ['fix the CI dependency cache', 'CI cache is never restored', 'GitHub Actions cache misses every run'],
    ['every pipeline run downloads all packages again', 'our build server keeps reinstalling modules from scratch'],
  ),
  f(
    'fix_sorting_locale',
    'src/utils/sort.ts',
    'test',
    ['edit'],
    ['fix sorting of names with accents', 'accented names sort in the wrong order', 'locale-aware sort for customer names'],
    ['Émile shows up after Zoe in the customer list', 'alphabetical ordering ignores diacritics properly'],
  ),
  f(
    'add_export_json',
    'src/reports/json_export.py',
    'edit',
    ['test'],
    ['add JSON export for reports', 'reports should be exportable as JSON', 'export report data in JSON format'],
    ['let analysts download the summaries in a machine-readable structure', 'provide the dashboards as structured data files'],
  ),
];

/** Tasks none of the families above covers (first_action must be null). */
export const UNSEEN: { kind: string; text: string }[] = [
  { kind: 'sso_integration', text: 'integrate single sign-on with Okta for employees' },
  { kind: 'blog_writing', text: 'draft a blog post announcing the spring release' },
  { kind: 'gc_tuning', text: 'tune the JVM garbage collector pauses on the ingest service' },
  { kind: 'metrics_instrumentation', text: 'emit Prometheus histograms for queue depth' },
  { kind: 'font_loading', text: 'the brand typeface does not load on Safari' },
  { kind: 'vpn_setup', text: 'configure the office VPN for remote contractors' },
  { kind: 'captcha_signup', text: 'put a captcha on the signup form to stop bots' },
  { kind: 'audio_playback', text: 'audio playback stutters in the podcast player' },
  { kind: 'model_training', text: 'retrain the churn prediction model with last quarter data' },
  { kind: 'store_map', text: 'show store locations on an interactive map' },
  { kind: 'receipt_printing', text: 'receipt printer skips the last line' },
  { kind: 'admin_2fa', text: 'require two factor codes for administrators' },
  { kind: 'bucket_cleanup', text: 'delete stale objects from the assets bucket' },
  { kind: 'graphql_catalog', text: 'expose the catalog through a GraphQL schema' },
  { kind: 'gps_accuracy', text: 'delivery app reports wrong GPS coordinates indoors' },
  { kind: 'support_chat', text: 'add a support chat widget to the help center' },
  { kind: 'keyboard_shortcuts', text: 'keyboard shortcuts conflict with browser defaults' },
  { kind: 'log_archival', text: 'ship old application logs to cold storage' },
  { kind: 'invoice_letterhead', text: 'render invoices with the company letterhead' },
  { kind: 'bluetooth_pairing', text: 'the scanner loses its bluetooth pairing' },
];

/**
 * A second, fresh held-out set (added 2026-11-23, after the dense rule constants had been fitted
 * on FAMILIES[].test and UNSEEN): two more phrasings per family, keyed by task_kind, and twenty
 * more unseen tasks, written before any further tuning and never used to choose a rule or a
 * constant. quality.ts reports them separately (`fresh`), so the figure there is an honest
 * estimate on phrasings the rule was not fitted to. Like `test`, they share few words with the
 * training phrasings; some unseen tasks are deliberately near a family or the noise vocabulary
 * (subtitles vs. German translations, video thumbnails vs. photo thumbnails, a CSV import CLI).
 */
export const FRESH: Record<string, string[]> = {
  fix_flaky_test: ['background tasks that error are not reliably tried again', 'the consumer that processes queued work gives up on errors at random'],
  fix_auth_expiry: ['once the login lifetime ends people are kicked out instead of staying signed in', 'stale credentials should be swapped for new ones automatically'],
  speed_csv_export: ['exporting bills as comma-separated values is painfully sluggish', 'the accounting report download is a performance bottleneck'],
  add_dark_mode: ['users want a black background option for the app at night', 'support an inverted colour palette toggle in user options'],
  fix_memory_leak: ['heap usage of the backend grows without bound', 'cached HTTP replies pile up and are never released'],
  migrate_db_schema: ['track the lifecycle stage of each sale in a new table column', 'database change so every purchase row carries its processing state'],
  fix_timezone_bug: ['repeating appointments are off by sixty minutes after the clock shift', 'scheduled series drift when summer time starts'],
  upgrade_dependency: ['bring the node web server package up to its newest major', 'our routing framework is several releases behind; update it'],
  fix_null_pointer: ['submitting a purchase with an empty account reference crashes the Java service', 'the checkout backend dies when a sale has no associated person'],
  add_rate_limit: ['protect the endpoints from abusive traffic bursts', 'enforce a per-client quota on incoming calls'],
  fix_css_layout: ['the site header is squashed on smartphones', 'on a small display the menu bar hides the text below it'],
  fix_parser_unicode: ['code containing Greek or Cyrillic symbols makes the front end of the compiler fall over', 'reading source files with umlauts in names throws'],
  improve_search_ranking: ['customers complain that the query results order makes no sense', 'better ordering for what the shop finder returns'],
  fix_email_encoding: ['special letters turn into garbage in the mails we send', 'non-ASCII text gets scrambled in the outbound messages we send users'],
  add_pagination: ['return the people list in chunks with a next token', 'the accounts endpoint should support offset and limit'],
  fix_docker_build: ['packaging the service into a container image fails', 'creating the deployable container fails at the first layer'],
  write_api_docs: ['write a guide for partners on receiving our HTTP callbacks', 'partners need a reference page on how our server pushes events to them'],
  fix_race_condition: ['two workers end up owning the same exclusive resource at the same time', 'mutual exclusion is broken under heavy parallel load'],
  add_feature_flag: ['roll out the redesigned cart gradually with a runtime toggle', 'make the new purchase page something we can enable for a subset of users'],
  fix_sql_injection: ['user text is pasted straight into database statements in the search', 'use prepared statements in the lookup to close the security hole'],
  fix_upload_limit: ['files above a small size are rejected when attaching them', 'posting large media through the form gives a too-large error'],
  refactor_payment_module: ['break the card charging code into cleaner pieces', 'split the billing processor class into smaller, readable functions'],
  fix_i18n_missing: ['the app shows English text to people using it in Deutsch', 'finish translating the interface for Austria and Switzerland'],
  fix_cron_schedule: ['the daily database dump starts at the wrong time of day', 'move the overnight snapshot job back to 2 am'],
  add_healthcheck: ['let the cluster check that our service is up and serving', 'provide a URL that reports whether the process is running fine'],
  fix_websocket_reconnect: ['the real-time feed does not resume after the connection drops', 'the browser streaming connection never recovers after going offline'],
  fix_pdf_rendering: ['tabular data gets clipped when exporting to PDF', 'wide tables are truncated in the printable version of reports'],
  add_audit_log: ['log every privileged operation for later review', 'we need an immutable history of staff changes in the control panel'],
  fix_image_thumbnail: ['small versions of uploaded photos are turned the wrong way', 'portrait pictures show up rotated in the gallery previews'],
  fix_ci_cache: ['pipelines never reuse the downloaded dependencies between builds', 'continuous integration fetches node modules fresh every time'],
  fix_sorting_locale: ['names with umlauts are ordered incorrectly in lists', 'alphabetize people properly regardless of special characters'],
  add_export_json: ['offer the analytics output in a structured format for other tools', 'make report data available as machine-readable files'],
};

/** Fresh unseen tasks (first_action must be null), written with FRESH and never used for tuning. */
export const UNSEEN_FRESH: { kind: string; text: string }[] = [
  { kind: 'push_migration', text: 'migrate the mobile app push notifications to Firebase' },
  { kind: 'load_testing', text: 'set up nightly load tests against staging' },
  { kind: 'subtitles', text: 'translate the onboarding video subtitles to Spanish' },
  { kind: 'android_crash', text: 'the barcode scanner app crashes on older Android phones' },
  { kind: 'image_compression', text: 'compress product images before uploading them to the CDN' },
  { kind: 'referrals', text: 'add a referral program that rewards inviting friends' },
  { kind: 'autocomplete', text: 'the search box should autocomplete city names' },
  { kind: 'secret_rotation', text: 'rotate the database credentials stored in the vault' },
  { kind: 'shipping_rates', text: 'estimate shipping costs at checkout using carrier rates' },
  { kind: 'duplicate_digest', text: 'the weekly digest email is sent twice to some users' },
  { kind: 'kanban_dnd', text: 'add drag and drop reordering to the kanban board' },
  { kind: 'sitemaps', text: 'generate sitemaps for the marketing website' },
  { kind: 'video_thumbnails', text: 'video thumbnails are black for very short clips' },
  { kind: 'structured_logging', text: 'switch the logging library to structured JSON output' },
  { kind: 'contact_import', text: 'build a CLI command that imports contacts from a CSV file' },
  { kind: 'printer_driver', text: 'the printer driver install fails on Windows' },
  { kind: 'multi_currency', text: 'add multi-currency prices to the product catalog' },
  { kind: 'chatbot_language', text: 'the chatbot replies in the wrong language' },
  { kind: 'social_scheduling', text: 'schedule social media posts from the admin panel' },
  { kind: 'cold_start', text: 'measure cold start time of the serverless functions' },
];

/**
 * A third held-out set (added 2026-11-23, after FRESH had been looked at): two more phrasings per
 * family and twenty more unseen tasks, written before the token-alignment check
 * (bench/learning/token-alignment.ts) was tried, and evaluated only once, after the candidate
 * floors were frozen. Like `test` and FRESH, the phrasings share few words with the training
 * ones; seven of the unseen tasks are deliberately on a topic near a family (French help-center
 * translations vs. German UI strings, video thumbnails, websocket descriptors vs. memory leak,
 * a search-engine upgrade, backup compression, dark e-mails, tablet rotation).
 */
export const FRESH2: Record<string, string[]> = {
  fix_flaky_test: ['jobs that hit a transient error are only sometimes rescheduled', 'the async task runner drops failed items instead of trying again, but not always'],
  fix_auth_expiry: ['after an hour users must sign in again because the session key is not renewed', 'an outdated login credential is never exchanged for a fresh one'],
  speed_csv_export: ['pulling the billing records into a spreadsheet file takes far too long', 'the finance team waits ages for the billing sheet to download'],
  add_dark_mode: ['add a nighttime look with light text on a black background', 'customers ask for an eye-friendly dim interface they can switch on in their profile'],
  fix_memory_leak: ['the service eats more and more RAM over days until it restarts', 'saved replies are held forever so the heap explodes'],
  migrate_db_schema: ['extend the table of customer purchases with a field for their delivery progress', 'alter the sales table so each row knows whether it has shipped'],
  fix_timezone_bug: ['weekly reminders jump an hour when the clocks go forward', 'periodic meetings show at the wrong time after the seasonal time change'],
  upgrade_dependency: ['adopt the newest major of the library that serves our HTTP routes', 'the request-handling framework we build on is a major version behind'],
  fix_null_pointer: ['the Java order backend throws when the buyer field is empty', 'an order placed by a guest with no account makes the service crash'],
  add_rate_limit: ['limit how often a single caller may hit the service each second', 'shield our web service from request floods by one consumer'],
  fix_css_layout: ['the header navigation is misplaced when viewed on a phone', 'on tiny screens the site menu sits on top of the article text'],
  fix_parser_unicode: [
    'source code scanning falls over on variable names written in Japanese',
    'symbols spelled with letters outside ASCII abort the scanning stage of the compiler',
  ],
  improve_search_ranking: ['the best matching goods are buried deep in the result list', 'put the most fitting merchandise first when people look up items in the store'],
  fix_email_encoding: ['accented characters come out wrong in the messages our system mails out', 'outbound mail shows strange symbols in place of non-English letters'],
  add_pagination: [
    'the member directory route should hand back results in batches with a continuation token',
    'do not send every account in one response; let clients request further pages',
  ],
  fix_docker_build: ['the container recipe no longer builds since the upstream OS layer changed', 'our deployment artifact fails to assemble in the packaging step'],
  write_api_docs: ['write reference pages explaining the outbound event callbacks', 'partners cannot find how our push notifications to their servers work; add a guide'],
  fix_race_condition: ['two threads can both acquire the exclusive lease simultaneously', 'concurrency bug: parallel callers both enter the critical section'],
  add_feature_flag: ['ship the new purchase page dark, switchable without a deploy', 'add a runtime switch so only some customers see the reworked cart'],
  fix_sql_injection: ['user-provided text reaches the database query unescaped in the finder', 'bind user values in the lookup statement so nobody can smuggle in commands'],
  fix_upload_limit: ['sending a big attachment returns an error about the payload size', 'allow bigger files to be submitted through the attach form'],
  refactor_payment_module: ['the charge handling code is a mess; reshape it into clear modules', 'simplify the class that bills credit cards'],
  fix_i18n_missing: ['users in Vienna and Berlin still see some English words in the interface', 'the Deutsch language pack is incomplete'],
  fix_cron_schedule: ['the overnight data snapshot starts in the middle of the working day', 'change the timer so the database copy runs at 3 in the morning'],
  add_healthcheck: ['the container platform needs a URL it can poll to see the app is up', 'report whether the server is ready to take traffic'],
  fix_websocket_reconnect: ['the live connection stays down when the network returns', 'automatically restore the streaming link after a dropped connection'],
  fix_pdf_rendering: ['grids in exported documents are cut at the page margin', 'the printable report truncates wide columns'],
  add_audit_log: ['record which staff member changed what in the management console', 'keep a tamper-proof record of operator activity for compliance reviews'],
  fix_image_thumbnail: ['preview images of uploaded pictures appear turned by ninety degrees', 'the small photo previews ignore how the camera was held'],
  fix_ci_cache: ['the build pipeline downloads every package from scratch on each run', 'packages fetched in one workflow run are not reused by the next'],
  fix_sorting_locale: ['names beginning with Ä or Ö end up at the bottom of the list', 'ordering of people by surname breaks for letters like ñ and ç'],
  add_export_json: ['allow report figures to be fetched in a format scripts can parse', 'produce the summaries as a machine-readable file for other systems'],
};

/** Third-set unseen tasks (first_action must be null), written with FRESH2; the first seven are near a family's topic. */
export const UNSEEN_FRESH2: { kind: string; text: string }[] = [
  { kind: 'help_center_french', text: 'add French translations for the help center articles' },
  { kind: 'video_thumbnail_speed', text: 'thumbnail generation is slow for large uploaded videos' },
  { kind: 'socket_fd_leak', text: 'the websocket server leaks file descriptors' },
  { kind: 'search_engine_upgrade', text: 'migrate the search index to Elasticsearch 8' },
  { kind: 'backup_compression', text: 'compress old database backups to save disk space' },
  { kind: 'email_dark_theme', text: 'add a dark theme to the marketing emails' },
  { kind: 'tablet_rotation', text: 'the tablet app freezes when rotating the screen' },
  { kind: 'status_page', text: 'set up a status page for customers during outages' },
  { kind: 'battery_drain', text: 'the mobile app drains the battery in the background' },
  { kind: 'wishlist', text: 'let shoppers save items to a wishlist' },
  { kind: 'ticket_qr', text: 'generate QR codes for event tickets' },
  { kind: 'voice_notes', text: 'add speech-to-text for voice notes' },
  { kind: 'thermostat', text: 'the smart thermostat integration loses its schedule' },
  { kind: 'stock_dashboard', text: 'create a dashboard of warehouse stock levels' },
  { kind: 'onboarding_checklist', text: 'onboard new hires with a welcome checklist' },
  { kind: 'appointments', text: 'allow customers to book appointments online' },
  { kind: 'map_tiles', text: 'the map tiles load slowly in rural areas' },
  { kind: 'loyalty_points', text: 'add a loyalty points balance to the customer profile' },
  { kind: 'late_delivery_sms', text: 'send SMS alerts when a delivery is late' },
  { kind: 'carousel_stock', text: 'the recommendation carousel shows out-of-stock products' },
];

/**
 * Ten more families (issue 28's rebuild: ≥ 40 families), written the same way: held-out
 * phrasings that describe the task without the training phrasings' words.
 */
export const MORE_FAMILIES: Family[] = [
  f(
    'fix_cart_rounding',
    'src/checkout/totals.ts',
    'read',
    ['edit', 'test'],
    ['fix cart total rounding errors', 'cart totals round to the wrong cent', 'rounding bug in checkout totals'],
    ['shoppers are charged a penny extra on some orders', 'the sum at payment time is off by one hundredth'],
  ),
  f(
    'add_csv_import',
    'src/contacts/importer.ts',
    'edit',
    ['test'],
    ['add CSV import for contacts', 'import contacts from a CSV file', 'contacts need a CSV upload importer'],
    ['let sales people load their address book from a spreadsheet', 'bulk-create people records out of an uploaded sheet'],
  ),
  f(
    'refactor_notification_service',
    'src/notify/dispatcher.ts',
    'read',
    ['edit', 'test'],
    ['refactor the notification dispatcher', 'split the notification service into channels', 'clean up notification dispatch code'],
    ['restructure how alerts fan out to SMS, push and mail', 'untangle the module that decides which message goes where'],
  ),
  f(
    'fix_password_reset',
    'src/auth/reset.py',
    'grep',
    ['read', 'edit'],
    ['fix password reset links expiring immediately', 'password reset emails have dead links', 'reset password link is invalid on first click'],
    ['people cannot recover a forgotten credential because the mailed URL already lapsed', 'the recovery message points to a page that says it timed out'],
  ),
  f(
    'speed_dashboard_query',
    'src/analytics/dashboard.sql',
    'bash',
    ['read', 'edit'],
    ['speed up the analytics dashboard query', 'dashboard query is slow', 'optimize the slow analytics SQL'],
    ['the metrics overview page takes forever to appear', 'charts for managers load after a long wait'],
  ),
  f(
    'add_webhook_retries',
    'src/webhooks/sender.go',
    'edit',
    ['test'],
    ['add retries to outgoing webhooks', 'webhook deliveries should be retried', 'retry failed webhook sends'],
    ['callbacks to partner systems are lost when their endpoint hiccups once', 'try again later when a customer URL we notify is down'],
  ),
  f(
    'fix_memory_profile_upload',
    'src/media/upload_worker.py',
    'test',
    ['read', 'edit'],
    ['fix video upload worker crashing on large files', 'large video uploads crash the worker', 'upload worker dies on big videos'],
    ['multi-gigabyte clips kill the transcoding process', 'huge movie files make the ingestion job abort'],
  ),
  f(
    'chore_lint_config',
    '.eslintrc.json',
    'read',
    ['edit', 'bash'],
    ['update the eslint configuration', 'eslint rules need updating', 'tighten the lint config'],
    ['our static style checker should forbid unused variables', 'make the code style checker stricter about imports'],
  ),
  f(
    'test_billing_coverage',
    'tests/billing/test_invoices.py',
    'edit',
    ['test'],
    ['add tests for invoice generation', 'invoice generation needs unit tests', 'increase billing test coverage'],
    ['cover the code that produces bills with automated checks', 'nothing verifies that monthly statements come out right'],
  ),
  f(
    'fix_search_autocomplete',
    'web/src/search/Autocomplete.tsx',
    'read',
    ['edit', 'test'],
    ['fix search autocomplete suggestions', 'autocomplete shows stale suggestions', 'search box suggestions are wrong'],
    ['typing in the lookup field proposes outdated completions', 'the drop-down of guesses under the query input lags behind'],
  ),
];

/**
 * Shared task kinds (issue 28): agents send a handful of kinds, not one per task. Every family's
 * kind in the benchmark is one of these, so task_kind narrows the search but does not name the
 * family (several families per kind).
 */
export const SHARED_KINDS = ['bugfix', 'feature', 'refactor', 'test', 'chore', 'perf'] as const;

export function sharedKind(kind: string): (typeof SHARED_KINDS)[number] {
  if (/^(?:speed|improve|perf)/.test(kind) || kind === 'speed_dashboard_query') return 'perf';
  if (/^add|^write_api/.test(kind)) return 'feature';
  if (/^refactor/.test(kind)) return 'refactor';
  if (/^test_/.test(kind)) return 'test';
  if (/^(?:upgrade|migrate|chore)/.test(kind)) return 'chore';
  return 'bugfix';
}

/** An unseen task's plausible shared kind (what a caller would send with it). */
export function unseenKind(text: string): (typeof SHARED_KINDS)[number] {
  if (/\b(?:slow|tune|speed|faster|latency|pauses)\b/i.test(text)) return 'perf';
  if (/^(?:add|integrate|show|expose|put|require|emit|render|draft|support|let|offer|build|create|provide)\b/i.test(text)) return 'feature';
  if (/^(?:delete|ship|configure|retrain|rotate|renew|archive|move|bump|update|upgrade)\b/i.test(text)) return 'chore';
  return 'bugfix';
}
