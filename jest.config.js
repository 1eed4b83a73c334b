/** Two suites: fast unit tests beside the code, and integration tests against the real stack. */
const { pathsToModuleNameMapper } = require('ts-jest');
const { compilerOptions } = require('./tsconfig.json');

const moduleNameMapper = pathsToModuleNameMapper(compilerOptions.paths, { prefix: '<rootDir>/' });
// @kubernetes/client-node and its dependencies ship ESM only; jest's CommonJS loader needs them transformed.
const esmPackages = [
  '@kubernetes/client-node',
  'openid-client',
  'oauth4webapi',
  'jose',
  'jsonpath-plus',
];
const transform = {
  '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }],
  '^.+\\.m?js$': ['ts-jest', { tsconfig: { allowJs: true, module: 'commonjs' } }],
};
const transformIgnorePatterns = [`node_modules/(?!(${esmPackages.join('|')})/)`];

const common = {
  rootDir: __dirname,
  moduleNameMapper,
  transform,
  transformIgnorePatterns,
  testEnvironment: 'node',
  // The local stack's data (etcd keeps *.snap files) is not part of the code jest maps.
  modulePathIgnorePatterns: ['<rootDir>/.kpm/', '<rootDir>/dist/'],
  // Crawl only our sources: .kpm holds Kafka's logs and etcd's data, dist the build output.
  roots: ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/test', '<rootDir>/bench'],
};

/**
 * Integration suites that must run alone, after the others: each changes what the others share.
 * Every other suite keeps to a topic prefix, label domain and sessions of its own, so they run
 * side by side (test/README.md).
 */
const SERIAL_SUITES = [
  // Takes the real node down and up again.
  'real-node-host',
  // Kills and stops the real node's kubelet and containerd.
  'real-node-faults',
  // `kpm services up|down`: the default topic prefix, consumer groups and ports.
  'cli',
  // kpm's own Deployments in kpm-system on the real node, under the default prefix and groups.
  'kit-real-node',
  // Measures the dashboard's drawing time against its bound: with three suites beside it on 2 cores
  // it read 1,016 and 1,113 ms, alone 548–741 ms. A time is measured with nothing else running.
  'dashboard-browser',
  // A browser that must see no error: Chromium aborts its loads in flight (ERR_NETWORK_CHANGED)
  // when the host's network changes, as it does while other suites' pods come and go on the real
  // node (each adds and removes an interface on the host's side). CI read five such errors once.
  'http-auth',
];

/**
 * Integration suites that load the shared stack most — thousands of pods on kwok's nodes or
 * records in the state, image builds, broker restarts — run after the others, two at a time
 * (scripts/test-integration.sh). kwok plays every pod's stages through one queue: beside a
 * thousand pods of theirs, another suite's pod waited over a minute to be Running or Ready
 * (a connection server past its 60 s PodReadyTimeout, a kill landing before its process ran).
 */
const HEAVY_SUITES = [
  'node-images',
  'watcher-throughput',
  'kafka-failover',
  'boot-worker-scale',
  'hostile-input',
  'state-throughput',
];
const suitePaths = (names) => names.map((name) => `<rootDir>/test/integration/${name}.test.ts`);
const suitePatterns = (names) => names.map((name) => `/test/integration/${name}\\.test\\.ts$`);

const integration = {
  ...common,
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
};

module.exports = {
  // testTimeout is a global option: inside `projects` jest ignores it. Integration tests wait on
  // real brokers and pods; unit tests finish far below it.
  testTimeout: 120000,
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: [
        '<rootDir>/{apps,libs,bench}/**/*.spec.ts',
        '<rootDir>/test/architecture/*.spec.ts',
      ],
    },
    {
      ...integration,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/**/*.test.ts'],
      testPathIgnorePatterns: suitePatterns([...SERIAL_SUITES, ...HEAVY_SUITES]),
    },
    { ...integration, displayName: 'integration-heavy', testMatch: suitePaths(HEAVY_SUITES) },
    { ...integration, displayName: 'integration-serial', testMatch: suitePaths(SERIAL_SUITES) },
  ],
};
