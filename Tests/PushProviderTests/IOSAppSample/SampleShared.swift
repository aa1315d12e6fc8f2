import Foundation
import HeraldKit
import Synchronization

/// docs/ios-app.md's `Shared.swift` names an app group, whose container exists only on Apple platforms: here the test
/// gives the folder and the provider before the sample first uses `Herald.shared`. Every other sample file is the
/// document's code as it is written there.
enum SampleEnvironment {
    static let configuration = Mutex<HeraldConfiguration?>(nil)
}

extension Herald {
    static let shared: Herald = {
        guard let configuration = SampleEnvironment.configuration.withLock({ $0 }),
            let herald = try? Herald(configuration: configuration)
        else { fatalError("the test sets SampleEnvironment.configuration before the sample runs") }
        return herald
    }()
}
