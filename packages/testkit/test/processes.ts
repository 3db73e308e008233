/** Whether a process id is alive (signal 0 only checks). */
export const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
