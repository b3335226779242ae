// What both WebDriver suites (the app's and the browser's) share: one local runner on 127.0.0.1,
// one session at a time, mocha, and the same timeouts.
export const sessionDefaults = {
  runner: 'local',
  hostname: '127.0.0.1',
  maxInstances: 1,
  logLevel: 'warn',
  framework: 'mocha',
  reporters: ['spec'],
  mochaOpts: { ui: 'bdd', timeout: 120_000 },
  waitforTimeout: 30_000,
  connectionRetryCount: 2,
};
