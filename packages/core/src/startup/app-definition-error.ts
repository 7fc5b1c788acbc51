/** One mistake in an app definition, at a path such as `sync.types.issue.fields.repo.relation`. */
export interface DefinitionProblem {
  path: string;
  message: string;
}

/** Thrown by `createRouter()` when the definition has mistakes; lists every one of them. */
export class AppDefinitionError extends Error {
  readonly problems: readonly DefinitionProblem[];
  constructor(problems: readonly DefinitionProblem[]) {
    const lines = problems.map((p) => `  - ${p.path}: ${p.message}`);
    super(
      `The app definition has ${problems.length} problem${problems.length === 1 ? '' : 's'}:\n${lines.join('\n')}`,
    );
    this.name = 'AppDefinitionError';
    this.problems = problems;
  }
}
