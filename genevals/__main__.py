import sys

from genevals.cli import main

sys.exit(main())
