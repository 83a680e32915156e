; `import Foundation`, `@testable import App`, `import struct os.Logger`.
(import_declaration) @import
