import sys

from sweep_lib.cli import main

sys.exit(main())
