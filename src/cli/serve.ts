/** `crm-enrich serve`: configuration, the embedded sandboxes where needed, the service, and a clean stop on SIGTERM. */
import { readConfig } from '../config.js';
import { logger } from '../logger.js';
import { banner, startDemo } from './demo.js';
import { embeddedEnvironment } from './embedded.js';
import { preflight } from './preflight.js';
import { startService } from '../app/start-service.js';
import type { Service } from '../service/service.js';

const log = logger('service.serve');

export async function serve(options: { mappings: string; demo: boolean }): Promise<void> {
  const { config, problems } = readConfig();
  // Every setting is checked before the sandboxes start, and every mistake is reported in one list.
  await preflight(config, { mappingsDir: options.mappings, known: problems });
  const env = await embeddedEnvironment(config, { mappingsDir: options.mappings });
  let service: Service | undefined;
  let url: string;
  try {
    service = await startService({ config: env.config, mappingsDir: options.mappings, adminToken: env.adminToken });
    // The preflight found the port free; another process may have taken it since.
    url = await service.listen(config.PORT, config.HOST);
  } catch (error) {
    await service?.stop().catch(() => undefined);
    await env.close();
    throw error;
  }
  const demo = startDemo(env, { enabled: options.demo });
  process.stdout.write(`${banner(env, url, demo)}\n`);
  log.info(
    {
      url,
      crms: service.parts.connectors.map((c) => c.connection),
      mappings: service.parts.mappings
        .list()
        .map((m) => `${m.version.crm}/${m.version.objectType} v${m.version.version}`),
    },
    'crm-enrich started',
  );

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping');
    demo.stop();
    try {
      await service.stop();
      await env.close();
      process.exit(0);
    } catch (error) {
      log.error({ err: error }, 'could not stop cleanly');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}
