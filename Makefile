.PHONY: lab test setup

lab:
	bash scripts/lab.sh

test:
	bash scripts/test.sh

setup:
	bash scripts/setup.sh
