import { MailroomError } from '@mailroom/core';

/**
 * The app cannot receive or send correctly as configured; thrown while the app starts
 * (`app.init()` / `app.listen()`), never at the first request. Lists every problem found.
 */
export class MailroomSetupError extends MailroomError {
  override name = 'MailroomSetupError';
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    const list = problems.map((problem) => `  - ${problem}`).join('\n');
    super('NEST_SETUP', `MailroomModule cannot start:\n${list}`);
    this.problems = problems;
  }
}
