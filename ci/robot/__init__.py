"""make robot's guest side and verdict: judge (from the stages and the
console alone); its stages are ci/pipeline/robot.py."""
