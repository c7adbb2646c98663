import PackagePlugin

/// Stamps the release version into the module it is applied to (PathwatchBase): runs
/// `release-version` on docs/changelog.md, whose newest release heading names the release, and
/// compiles the `Release` enum it writes. The changelog is the command's input, so a new release
/// heading rebuilds what reads the version.
@main
struct ReleaseVersionPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let changelog = context.package.directoryURL.appending(path: "docs/changelog.md")
        let output = context.pluginWorkDirectoryURL.appending(path: "Release.swift")
        return [
            .buildCommand(
                displayName: "Reading the release version from docs/changelog.md",
                executable: try context.tool(named: "release-version").url,
                arguments: [changelog.path(), output.path()],
                inputFiles: [changelog],
                outputFiles: [output])
        ]
    }
}
