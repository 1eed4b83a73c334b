/** One reason a message was refused; `path` is empty only for the value as a whole. */
export interface FieldError {
  path: string;
  message: string;
}
