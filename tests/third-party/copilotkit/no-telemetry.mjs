// Imported before CopilotKit (ES modules run in import order): its telemetry
// client reads these when its module is first evaluated, so setting them later
// would leave a test run reporting to CopilotKit's servers.
process.env.COPILOTKIT_TELEMETRY_DISABLED = 'true';
process.env.DO_NOT_TRACK = '1';
