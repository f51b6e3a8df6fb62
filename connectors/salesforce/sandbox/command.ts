import type { Command } from 'commander';

export function registerSalesforceSandboxCommand(parent: Command): void {
  void parent;
}
