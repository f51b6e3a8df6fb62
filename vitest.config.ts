import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    // Starts a Postgres for the suites that need one when none answers (or TEST_POSTGRES=embedded).
    // Compiles the service (bin/build.js) for the suites that start it as its own process.
    // Dumps one empty PGlite database that the test files load instead of each running initdb.
    globalSetup: ['test/support/global-postgres.ts', 'test/support/global-build.ts', 'test/support/global-pglite.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // expect.poll waits for a page or a service to reach a state; its 1 s default is shorter than one
    // round trip through the admin page when both forks keep the two cores busy (a rollback's message
    // missed it once in CI). A state that never comes still fails, after 5 s.
    expect: { poll: { timeout: 5_000 } },
    // Three files at a time on two cores: the end-to-end files spend most of their time waiting on a service,
    // a sandbox or a poll (two files kept 0.5-1.5 cores busy), and 24 GB holds three forks' PGlite instances and
    // sandboxes. The whole suite ran in 665 s this way on a loaded machine, against 922 s with two.
    pool: 'forks',
    maxWorkers: 3,
    env: { LOG_LEVEL: 'silent' },
    // HubSpot's project parser fetches component schemas from HubSpot's API; inlining it lets the test
    // of the rendered app project answer that one call (test/hubspot/app-project.test.ts).
    server: { deps: { inline: ['@hubspot/project-parsing-lib'] } },
  },
});
