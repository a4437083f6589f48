import FPCore
