export class PrintError extends Error {}
export class QuestionWithdrawn extends Error {}
/** A question this client cannot answer (no terminal, end of input): the server is told why. */
export class QuestionUnanswerable extends Error {}
