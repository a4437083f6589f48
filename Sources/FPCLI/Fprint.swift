import ArgumentParser
public struct Fprint: AsyncParsableCommand {
    public init() {}
    public func run() async throws {}
}
