import type { Command } from 'commander';

/** `crm-enrich hubspot-app`: writes the HubSpot app project for this deployment, ready for `hs project upload`. */
export function registerHubspotAppCommand(program: Command): void {
  program
    .command('hubspot-app')
    .description(
      'write the HubSpot app project (webhooks, workflow action, record card) for your public URL, ' +
        'to upload with `hs project upload`',
    )
    .requiredOption('--public-url <url>', 'the https origin HubSpot calls (PUBLIC_URL), e.g. https://x.example.com')
    .requiredOption('--out <dir>', 'a new or empty directory to write the project into')
    .action(async (opts: { publicUrl: string; out: string }) => {
      const { renderHubspotAppProject } = await import('./app-project.js');
      try {
        const files = await renderHubspotAppProject({ publicUrl: opts.publicUrl, outDir: opts.out });
        console.log(`wrote the HubSpot app project (${files.length} files) into ${opts.out}`);
        console.log(
          `next: cd ${opts.out} && hs project upload, then install the app` +
            ' and copy its access token and client secret',
        );
      } catch (error) {
        process.stderr.write(`${(error as Error).message}\n`);
        process.exitCode = 1;
      }
    });
}
