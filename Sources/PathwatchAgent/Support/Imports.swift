// The JSON values and config units are part of the agent's public API (LoadedConfig, documents).
@_exported import PathwatchJSON
