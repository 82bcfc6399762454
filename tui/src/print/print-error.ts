export class PrintError extends Error {}
export class QuestionWithdrawn extends Error {}
