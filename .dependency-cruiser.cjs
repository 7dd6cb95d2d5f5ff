/**
 * Lore's import boundaries (docs/design.md, "Layers"), checked by test/unit/boundaries.test.ts in
 * `npm test` and by `npx depcruise src workflows activities` by hand.
 *
 * The allowed directions are written once, in LAYERS: each layer names the layers it may import
 * (besides itself and npm packages). Everything else is a violation, as is any import cycle.
 * Data flows http → domain → (store | engine); engine → workflows → activities → (store | sandbox)
 * at run time (the engine starts workflows by name, it does not import them); model is at the bottom
 * and imports nothing of the project; contract imports only model.
 */

/** Layer name → where its files are and which layers it may import. */
const LAYERS = {
  model: { path: '^src/model/', may: [] },
  contract: { path: '^src/contract/', may: ['model'] },
  sdk: { path: '^src/sdk/', may: ['contract', 'model'] },
  log: { path: '^src/log\\.ts$', may: [] },
  retrieval: { path: '^src/retrieval/', may: ['model', 'log'] },
  // config reads the encoder catalogue to validate LORE_EMBEDDINGS_MODEL
  config: { path: '^src/config\\.ts$', may: ['model', 'retrieval'] },
  store: { path: '^src/store/', may: ['model', 'log'] },
  sandbox: { path: '^src/sandbox/', may: ['model', 'log'] },
  // errors are contract values (LoreError): the engine turns engine failures into them
  engine: { path: '^src/engine/', may: ['model', 'contract', 'log'] },
  // the store tracer hook is how spans reach database calls
  telemetry: { path: '^src/telemetry/', may: ['model', 'config', 'log', 'store'] },
  // families get the few settings they read handed in (src/app/settings.ts), never config.ts
  domain: { path: '^src/domain/', may: ['model', 'contract', 'store', 'engine', 'retrieval', 'sandbox', 'log', 'telemetry'] },
  // the transport serves the contract's routes with the handlers it is given; it knows no family
  http: { path: '^src/http/', may: ['model', 'contract', 'telemetry', 'log', 'config'] },
  inspector: { path: '^src/inspector/', may: ['model', 'contract', 'log'] },
  agents: { path: '^src/agents/', may: ['model', 'contract', 'sdk', 'http', 'config', 'log'] },
  local: { path: '^src/local/', may: ['model', 'config', 'log', 'retrieval'] },
  // workflows run in Temporal's deterministic sandbox: pure domain helpers, and activities as types only (rule below)
  workflows: { path: '^workflows/', may: ['model', 'domain', 'activities'] },
  activities: { path: '^activities/', may: ['model', 'domain', 'contract', 'store', 'sandbox', 'retrieval', 'config', 'log'] },
  // assembles families into handlers and services for the API and the worker
  app: { path: '^src/app/', may: ['model', 'contract', 'domain', 'http', 'agents', 'inspector', 'store', 'engine', 'retrieval', 'config', 'log', 'telemetry'] },
  // process entry points: they wire everything together and nothing imports them
  entry: { path: '^src/(main|worker|worker-ready|workflow-bundle)\\.ts$|^src/cli/', may: ['*'] },
};

const PROJECT = '^(src|workflows|activities|test|bench|scripts|bin)/';

const layerRules = Object.entries(LAYERS)
  .filter(([, l]) => !l.may.includes('*'))
  .map(([name, l]) => ({
    name: `layer-${name}`,
    comment: `${name} may import only: ${l.may.length ? l.may.join(', ') : 'nothing of the project'} (.dependency-cruiser.cjs, LAYERS)`,
    severity: 'error',
    from: { path: l.path },
    to: { path: PROJECT, pathNot: [l.path, ...l.may.map((m) => LAYERS[m].path)] },
  }));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'no-circular',
      comment: 'no import cycles, type-only ones included: a cycle means two modules are one unit or a shape sits in the wrong place',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'entry-points-are-not-imported',
      comment: 'main, worker and the CLI assemble the process; no layer reaches back up into them',
      severity: 'error',
      from: { pathNot: LAYERS.entry.path },
      to: { path: LAYERS.entry.path },
    },
    {
      name: 'workflows-import-activities-as-types',
      comment: 'a workflow calls activities through proxyActivities; a value import would pull their I/O into the workflow bundle',
      severity: 'error',
      from: { path: LAYERS.workflows.path },
      to: { path: LAYERS.activities.path, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'mongodb-only-in-store',
      comment: 'the store is the only place that imports the MongoDB driver',
      severity: 'error',
      from: { path: '^(src|workflows|activities)/', pathNot: LAYERS.store.path },
      to: { path: '^node_modules/mongodb/' },
    },
    {
      name: 'temporal-client-only-in-engine',
      comment: 'the engine is the only place in src/ that imports @temporalio/client',
      severity: 'error',
      from: { path: '^(src|workflows|activities)/', pathNot: LAYERS.engine.path },
      to: { path: '^node_modules/@temporalio/client/' },
    },
    {
      name: 'domain-knows-no-http',
      comment: 'the domain never imports HTTP (Fastify) or the Temporal worker',
      severity: 'error',
      from: { path: LAYERS.domain.path },
      to: { path: '^node_modules/(fastify|@fastify|@temporalio/worker)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};

// For test/unit/boundaries.test.ts (every file of src/ belongs to a layer); not enumerable, so not part of the configuration.
Object.defineProperty(module.exports, 'LAYERS', { value: LAYERS, enumerable: false });
