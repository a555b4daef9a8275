declare module 'asl-validator' {
  interface ValidationResult {
    isValid: boolean;
    errors: unknown[];
    errorsText(separator?: string): string;
  }
  export default function aslValidator(
    definition: unknown,
    options?: { checkPaths?: boolean; checkArn?: boolean },
  ): ValidationResult;
}
