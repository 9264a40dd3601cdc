// The Gateways section's own state (G1, G2, G5): which Gateway is being edited, added, removed
// or tested, and what went wrong removing one. Saving and removing go through the desk, so
// the list re-renders from the settings main sends back.
import type { DeskApi, GatewayInput } from "../../common/contract.ts";
import type { DeskState } from "../lib/desk-state.svelte.ts";

export class GatewayEditing {
  /** The Gateway whose editor is open, "new" for the add form, null for none. */
  editing = $state<string | "new" | null>(null);
  /** The Gateway whose removal waits for a confirmation. */
  removing = $state<string | null>(null);
  /** The Gateway whose connection is being tested. */
  testing = $state<string | null>(null);
  error = $state<string | null>(null);

  private readonly desk: DeskState;
  private readonly api: DeskApi;

  constructor(desk: DeskState, api: DeskApi) {
    this.desk = desk;
    this.api = api;
  }

  /** Saves the editor's Gateway and closes it; a refusal propagates to the editor, which shows it. */
  async save(input: GatewayInput): Promise<void> {
    await this.desk.saveGateway(input);
    this.editing = null;
  }

  async remove(id: string): Promise<void> {
    this.error = null;
    try {
      await this.desk.removeGateway(id);
      this.removing = null;
    } catch (err) {
      this.error = `Couldn't remove the Gateway: ${err instanceof Error ? err.message : String(err)}`;
    }
  }

  async test(id: string): Promise<void> {
    this.testing = id;
    try {
      await this.api.retryConnection(id);
    } finally {
      this.testing = null;
    }
  }
}
