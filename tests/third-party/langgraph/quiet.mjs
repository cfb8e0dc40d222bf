// Imported first (ES modules run in import order): the LangGraph API reads its
// log level when its logging module is first evaluated, and LangSmith reads
// its tracing switches; this keeps a test run quiet and reporting nowhere.
process.env.LOG_LEVEL ??= 'error';
process.env.LANGSMITH_TRACING = 'false';
process.env.LANGCHAIN_TRACING_V2 = 'false';
process.env.LANGCHAIN_CALLBACKS_BACKGROUND = 'false';
process.env.DO_NOT_TRACK = '1';
