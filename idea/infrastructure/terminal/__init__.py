"""What every terminal adapter shares (spec 01): the program it started and its subscribers, the checks before a
start, the scanners over its raw output, and ending the program with everything it started."""
