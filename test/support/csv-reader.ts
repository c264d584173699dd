// A small RFC 4180 reader for the tests, written apart from the service's CSV
// writer: a character-by-character state machine over fields, quoted fields
// (with "" for a quote and line breaks inside), and CRLF or LF record ends.
// It throws on what RFC 4180 does not allow, so a badly quoted body fails.

export function readCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = "";
  let state: "start" | "plain" | "quoted" | "quote-in-quoted" = "start";
  const endField = () => {
    record.push(field);
    field = "";
    state = "start";
  };
  const endRecord = () => {
    endField();
    records.push(record);
    record = [];
  };
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i]!;
    switch (state) {
      case "start":
      case "plain":
        if (c === '"') {
          if (state === "plain") throw new Error(`quote inside an unquoted field at ${i}`);
          state = "quoted";
        } else if (c === ",") endField();
        else if (c === "\n") endRecord();
        else if (c === "\r") {
          if (text[i + 1] !== "\n") throw new Error(`CR without LF at ${i}`);
        } else {
          field += c;
          state = "plain";
        }
        break;
      case "quoted":
        if (c === '"') state = "quote-in-quoted";
        else field += c;
        break;
      case "quote-in-quoted":
        if (c === '"') {
          field += '"';
          state = "quoted";
        } else if (c === ",") endField();
        else if (c === "\n") endRecord();
        else if (c === "\r" && text[i + 1] === "\n") {
          // the LF ends the record
        } else throw new Error(`character after a closing quote at ${i}`);
        break;
    }
  }
  if (state === "quoted") throw new Error("unterminated quoted field");
  if (field !== "" || record.length > 0 || state === "quote-in-quoted") endRecord();
  return records;
}
