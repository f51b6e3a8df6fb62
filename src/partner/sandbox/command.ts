import type { Command } from 'commander';

export function registerPartnerSandboxCommand(parent: Command): void {
  void parent;
}
