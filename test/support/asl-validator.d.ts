/** asl-validator 4 ships JavaScript only; this is the part of its API the tests use. */
declare module 'asl-validator' {
  interface AslValidationResult {
    isValid: boolean;
    errors: unknown[];
    errorsText: (separator?: string) => string;
  }
  export default function validator(
    definition: object,
    options?: { checkPaths: boolean; checkArn: boolean },
  ): AslValidationResult;
}
