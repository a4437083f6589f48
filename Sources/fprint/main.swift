import FPCLI
