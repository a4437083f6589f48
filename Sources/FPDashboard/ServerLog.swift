import FPCore
import Logging

/// The servers' stderr log (`fprint gateway`, `fprint dashboard`): swift-log's
/// stream handler, with every control character in a message or a metadata
/// value escaped first. Names, paths and addresses in these lines come from
/// clients: `{"name":"mallory\nfprint gateway: FORGED …"}` must stay one line.
package struct ServerLogHandler: LogHandler {
    private var inner: StreamLogHandler

    package init(label: String) {
        inner = StreamLogHandler.standardError(label: label)
    }

    /// A logger whose lines cannot be forged by what clients send.
    package static func logger(label: String, level: Logger.Level = .warning) -> Logger {
        var logger = Logger(label: label) { ServerLogHandler(label: $0) }
        logger.logLevel = level
        return logger
    }

    package var logLevel: Logger.Level {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }

    // The logger's own metadata (a request's, set by Hummingbird) is escaped as it is set.
    package var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = Self.escaped(newValue) }
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { inner[metadataKey: ControlText.escaped(key)] = newValue.map(Self.escaped) }
    }

    package var metadataProvider: Logger.MetadataProvider? {
        get { inner.metadataProvider }
        set { inner.metadataProvider = newValue }
    }

    package func log(event: LogEvent) {
        var event = event
        event.message = "\(ControlText.escaped(event.message.description))"
        event.metadata = event.metadata.map(Self.escaped)
        inner.log(event: event)
    }

    static func escaped(_ metadata: Logger.Metadata) -> Logger.Metadata {
        metadata.reduce(into: [:]) { out, item in out[ControlText.escaped(item.key)] = escaped(item.value) }
    }

    static func escaped(_ value: Logger.Metadata.Value) -> Logger.Metadata.Value {
        switch value {
        case .string(let text): .string(ControlText.escaped(text))
        case .stringConvertible(let item): .string(ControlText.escaped(item.description))
        case .dictionary(let items): .dictionary(escaped(items))
        case .array(let items): .array(items.map(escaped))
        }
    }
}
