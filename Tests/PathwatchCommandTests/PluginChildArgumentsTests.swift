import ArgumentParser
import PathwatchCommands
import Testing

@testable import PathwatchCLI

/// A plug-in child reads the command line the agent writes without ArgumentParser
/// (`PluginChildArguments`): whatever it takes, ArgumentParser must read to the same options;
/// whatever else, it must leave to ArgumentParser.
@Suite struct PluginChildArgumentsTests {
    /// Command lines the direct reading takes, after `pathwatch`.
    static let taken: [[String]] = [
        ["plugin-child", "--plugin", "/usr/lib/pathwatch/libpathwatch_disk.so"],
        ["plugin-child", "--plugin", "a.so", "--max-memory", "268435456", "--max-observations", "10000"],
        ["plugin-child", "--describe", "--plugin", "a.so", "--plugin", "b.so", "--plugin", "c d.so"],
        ["plugin-child", "--plugin", "a.so", "--describe"],
        ["plugin-child", "--max-observations", "5", "--plugin", "x=y.so"],
        ["plugin-child", "--plugin", "a.so", "--max-memory", "+7"],
    ]

    /// Command lines left to ArgumentParser.
    static let left: [[String]] = [
        ["plugin-child"], ["plugin-child", "--describe"], ["plugin-child", "--help"],
        ["plugin-child", "--plugin"], ["plugin-child", "--plugin", "-a.so"], ["plugin-child", "--plugin=a.so"],
        ["plugin-child", "--plugin", "a.so", "--describe", "--describe"],
        ["plugin-child", "--plugin", "a.so", "--max-memory", "lots"],
        ["plugin-child", "--plugin", "a.so", "--max-memory", "1", "--max-memory", "2"],
        ["plugin-child", "--plugin", "a.so", "--max-observations", "-1"],
        ["plugin-child", "--plugin", "a.so", "--max-observations", "9", "--max-observations", "9"],
        ["plugin-child", "--plugin", "a.so", "extra"], ["plugin-child", "--plugin", "a.so", "--", "b"],
        ["once", "--plugin", "a.so"],
    ]

    @Test(arguments: taken) func takenLinesReadAsArgumentParserReadsThem(_ line: [String]) throws {
        let direct = try #require(PluginChildArguments(["pathwatch"] + line))
        let parsed = try Pathwatch.parseAsRoot(line)
        let child = try #require(parsed as? Pathwatch.PluginChildCommand)
        #expect(direct.plugins == child.plugin)
        #expect(direct.describe == child.describe)
        #expect(direct.maxMemory == child.maxMemory)
        #expect(direct.maxObservations == child.maxObservations)
    }

    @Test(arguments: left) func otherLinesAreLeftToArgumentParser(_ line: [String]) {
        #expect(PluginChildArguments(["pathwatch"] + line) == nil)
    }
}
