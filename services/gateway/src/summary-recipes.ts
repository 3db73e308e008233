/**
 * The batch-summary recipe (Summary.batchRecipe: the options, as JSON) of the projects this
 * gateway learned into lately, so that their long learn batches travel as their own summary
 * (@sml/stats/batch) instead of their rows. A project gives its recipe when asked in a learn
 * (LearnRequest.askSummaryRecipe); a recipe that went stale (the project was deleted and
 * created otherwise) is answered `needsColumns` and forgotten here. Bounded: the least
 * recently used project's recipe goes first (SML_GATEWAY_BATCH_SUMMARY_PROJECTS).
 */
export class SummaryRecipes {
  private readonly recipes = new Map<string, string>();

  constructor(private readonly capacity: number) {}

  get(user: string, pid: string): string | undefined {
    const key = SummaryRecipes.key(user, pid);
    const recipe = this.recipes.get(key);
    if (recipe !== undefined) {
      this.recipes.delete(key); // most recently used last
      this.recipes.set(key, recipe);
    }
    return recipe;
  }

  set(user: string, pid: string, recipe: string): void {
    if (this.capacity === 0) return;
    const key = SummaryRecipes.key(user, pid);
    this.recipes.delete(key);
    this.recipes.set(key, recipe);
    if (this.recipes.size > this.capacity) this.recipes.delete(this.recipes.keys().next().value!);
  }

  delete(user: string, pid: string): void {
    this.recipes.delete(SummaryRecipes.key(user, pid));
  }

  get size(): number {
    return this.recipes.size;
  }

  private static key(user: string, pid: string): string {
    return `${user}\u0000${pid}`;
  }
}
